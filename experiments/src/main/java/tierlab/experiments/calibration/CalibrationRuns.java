package tierlab.experiments.calibration;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import tech.tablesaw.api.Row;
import tech.tablesaw.api.Table;
import tech.tablesaw.io.csv.CsvReadOptions;
import tierlab.bench.BenchCase;

/**
 * Reads a {@code calibration-runs.csv} back into measured runs, so a calibration can be refitted
 * (a new model, another base profile) without measuring again.
 */
public final class CalibrationRuns {

    private CalibrationRuns() {}

    /** The runs of {@code file}; a bad file fails with one message naming the file, row and column. */
    public static List<MeasuredPoint> read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException(file + ": no such file");
        }
        Table table;
        try {
            table = Table.read().usingOptions(CsvReadOptions.builder(file.toFile()).build());
        } catch (RuntimeException e) {
            throw new IOException(file + ": not a readable CSV (" + e.getMessage() + ")", e);
        }
        for (String column : List.of("access", "block_bytes", "queue_depth", "repeat", "ops", "elapsed_s", "iops",
                "latency_mean_us", "latency_p50_us", "latency_p99_us", "io_uring_enter_calls")) {
            if (!table.columnNames().contains(column)) {
                throw new IOException(file + ": missing column '" + column + "'");
            }
        }
        List<MeasuredPoint> runs = new ArrayList<>();
        int line = 1;
        for (Row row : table) {
            line++;
            try {
                BenchCase.Access access = access(row.getString("access"));
                int blockBytes = ((Number) row.getObject("block_bytes")).intValue();
                BenchCase benchCase = new BenchCase(access, blockBytes, ((Number) row.getObject("queue_depth")).intValue());
                long ops = ((Number) row.getObject("ops")).longValue();
                double iops = number(row, "iops");
                runs.add(new MeasuredPoint(benchCase, ((Number) row.getObject("repeat")).intValue(), ops, ops * blockBytes,
                        Math.round(number(row, "elapsed_s") * 1e9), iops, iops * blockBytes, number(row, "latency_mean_us") * 1e3,
                        number(row, "latency_p50_us") * 1e3, number(row, "latency_p99_us") * 1e3,
                        ((Number) row.getObject("io_uring_enter_calls")).longValue()));
            } catch (RuntimeException e) {
                throw new IOException(file + ", line " + line + ": " + e.getMessage(), e);
            }
        }
        if (runs.isEmpty()) {
            throw new IOException(file + ": no runs");
        }
        return List.copyOf(runs);
    }

    private static double number(Row row, String column) {
        return ((Number) row.getObject(column)).doubleValue();
    }

    private static BenchCase.Access access(String name) {
        for (BenchCase.Access access : BenchCase.Access.values()) {
            if (access.fioRw().equals(name)) {
                return access;
            }
        }
        throw new IllegalArgumentException("column 'access': '" + name + "' is not one of randread, randwrite, read, write");
    }
}
