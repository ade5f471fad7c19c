package tierlab.experiments.calibration;

import java.io.StringWriter;
import java.util.List;
import java.util.Locale;
import tech.tablesaw.api.BooleanColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * The PCIe sweep's table (CSV through Tablesaw, and markdown) and the fit's lines, shared by
 * {@code tierlab bench pcie} and the calibration report. Decimal figures are text at a fixed
 * precision so the CSV reads the same as the markdown.
 */
public final class PcieTables {

    private PcieTables() {}

    public static Table table(List<PcieSweep.Point> points) {
        Table table = Table.create("pcie",
                StringColumn.create("direction"), LongColumn.create("copy_bytes"), IntColumn.create("streams"),
                BooleanColumn.create("pinned"), IntColumn.create("copies"), StringColumn.create("seconds_median"),
                StringColumn.create("gb_s_median"), StringColumn.create("gb_s_min"), StringColumn.create("gb_s_max"),
                StringColumn.create("us_per_copy_median"));
        for (PcieSweep.Point p : points) {
            table.stringColumn("direction").append(p.direction().name());
            table.longColumn("copy_bytes").append(p.copyBytes());
            table.intColumn("streams").append(p.streams());
            table.booleanColumn("pinned").append(p.pinned());
            table.intColumn("copies").append(p.copies());
            table.stringColumn("seconds_median").append(fixed(p.seconds(), 6));
            table.stringColumn("gb_s_median").append(fixed(p.bytesPerSecond() / 1e9, 3));
            table.stringColumn("gb_s_min").append(fixed(p.minBytesPerSecond() / 1e9, 3));
            table.stringColumn("gb_s_max").append(fixed(p.maxBytesPerSecond() / 1e9, 3));
            table.stringColumn("us_per_copy_median").append(fixed(p.nsPerCopy() / 1e3, 3));
        }
        return table;
    }

    public static String csv(List<PcieSweep.Point> points) {
        StringWriter text = new StringWriter();
        table(points).write().csv(text);
        return text.toString();
    }

    /** GB/s by copy size (rows) and streams (columns), one block per direction, pageable points last. */
    public static String markdown(List<PcieSweep.Point> points) {
        List<Integer> streamCounts = points.stream().filter(PcieSweep.Point::pinned).map(PcieSweep.Point::streams)
                .distinct().sorted().toList();
        List<Long> sizes = points.stream().filter(PcieSweep.Point::pinned).map(PcieSweep.Point::copyBytes)
                .distinct().sorted().toList();
        StringBuilder md = new StringBuilder();
        for (PcieSweep.Direction direction : PcieSweep.Direction.values()) {
            md.append("| ").append(direction).append(", pinned: GB/s (median) | ");
            for (int streams : streamCounts) {
                md.append(streams).append(streams == 1 ? " stream | " : " streams | ");
            }
            md.append("µs per copy, 1 stream |\n|---|");
            md.append("---:|".repeat(streamCounts.size() + 1)).append('\n');
            for (long size : sizes) {
                md.append("| ").append(PcieSweep.size(size)).append(" | ");
                double usPerCopy = Double.NaN;
                for (int streams : streamCounts) {
                    PcieSweep.Point point = find(points, direction, size, streams, true);
                    md.append(point == null ? "" : fixed(point.bytesPerSecond() / 1e9, 2)).append(" | ");
                    if (point != null && streams == 1) {
                        usPerCopy = point.nsPerCopy() / 1e3;
                    }
                }
                md.append(Double.isNaN(usPerCopy) ? "" : fixed(usPerCopy, 1)).append(" |\n");
            }
            md.append('\n');
        }
        List<PcieSweep.Point> pageable = points.stream().filter(p -> !p.pinned()).toList();
        if (!pageable.isEmpty()) {
            md.append("| pageable host memory, 1 stream | GB/s (median) |\n|---|---:|\n");
            for (PcieSweep.Point p : pageable) {
                md.append("| ").append(p.direction()).append(' ').append(PcieSweep.size(p.copyBytes())).append(" | ")
                        .append(fixed(p.bytesPerSecond() / 1e9, 2)).append(" |\n");
            }
            md.append('\n');
        }
        return md.toString();
    }

    /** "H2D: 53.81 GB/s, latency 2.4 µs (R² 0.99998, 7 sizes, one stream)". */
    public static String fitLine(String direction, PcieFit.DirectionFit fit) {
        return String.format(Locale.ROOT, "%s: %.2f GB/s, latency %.1f µs (R² %.5f, %d sizes, one stream)", direction,
                fit.bytesPerSecond() / 1e9, fit.latencyNs() / 1e3, fit.rSquared(), fit.points());
    }

    private static PcieSweep.Point find(List<PcieSweep.Point> points, PcieSweep.Direction direction, long size, int streams,
                                        boolean pinned) {
        for (PcieSweep.Point p : points) {
            if (p.direction() == direction && p.copyBytes() == size && p.streams() == streams && p.pinned() == pinned) {
                return p;
            }
        }
        return null;
    }

    private static String fixed(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }
}
