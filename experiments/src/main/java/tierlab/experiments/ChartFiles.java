package tierlab.experiments;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.internal.chartpart.Chart;
import tierlab.engine.persist.AtomicFiles;

/**
 * Writes a chart as PNG and SVG, the one place that does: experiment charts, miss-ratio charts,
 * validation charts and the calibration's all go through {@link #FILES} (or a substitute in a
 * test). Each file is written beside its final name and renamed over it ({@link AtomicFiles}), so
 * neither a re-plot into an existing folder nor a chart that fails half-way leaves half a file;
 * inside an {@link AtomicOutputDirectory}'s temporary folder the renames are cheap and invisible.
 *
 * <p>A chart never costs data: {@link #tryWrite} draws and writes one chart, and a chart that
 * cannot be drawn or written (a host without fonts: "Fontconfig head is null") comes back as its
 * cause in one line, its two files removed, while the caller's tables stay written.
 */
public final class ChartFiles {

    /** Every chart's size in pixels: one look across experiments, replays, validations and calibrations. */
    public static final int WIDTH_PX = 1000;
    public static final int HEIGHT_PX = 600;

    /** Writes one chart's PNG and SVG; tests substitute one that fails, as a host without fonts does. */
    @FunctionalInterface
    public interface Writer {
        void write(Chart<?, ?> chart, Path png, Path svg) throws IOException;
    }

    /** Draws a chart; may fail as the encoders may (fonts, AWT). */
    @FunctionalInterface
    public interface Drawing {
        Chart<?, ?> draw() throws IOException;
    }

    /** The real writer: PNG and SVG, each replaced atomically. */
    public static final Writer FILES = (chart, png, svg) -> {
        AtomicFiles.write(png, file -> writePng(chart, file));
        AtomicFiles.write(svg, file -> writeSvg(chart, file));
    };

    private ChartFiles() {
    }

    /**
     * Draws {@code drawing} and writes it as {@code folder/stem.png} and {@code .svg} through
     * {@code writer}; returns null when both were written, else the cause in one line (with its root
     * cause), both files deleted. Only a {@link VirtualMachineError} escapes: whatever else breaks a
     * chart must not take the tables and the report with it.
     */
    public static String tryWrite(Writer writer, Path folder, String stem, Drawing drawing) {
        Path png = folder.resolve(stem + ".png");
        Path svg = folder.resolve(stem + ".svg");
        try {
            writer.write(drawing.draw(), png, svg);
            return null;
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            deleteQuietly(png);
            deleteQuietly(svg);
            // A cause written for the user (no data to draw) is shown as it is; anything else with its class names.
            return e instanceof CommandException told ? told.getMessage() : CommandException.withRootCause(e);
        }
    }

    /** Writes {@code chart} as a PNG to {@code file} as it is (no rename). */
    public static void writePng(Chart<?, ?> chart, Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
        }
    }

    /** Writes {@code chart} as an SVG to {@code file} as it is (no rename). */
    public static void writeSvg(Chart<?, ?> chart, Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            VectorGraphicsEncoder.saveVectorGraphic(chart, out, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // A chart file that cannot be removed is left for the output folder's own rules to replace.
        }
    }
}
