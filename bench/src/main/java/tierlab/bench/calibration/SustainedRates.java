package tierlab.bench.calibration;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import tierlab.bench.BenchCase;
import tierlab.sim.device.NvmeProfile;

/**
 * What the drive sustains over seconds, not over a sweep point's fraction of a second: sequential
 * writes, then sequential reads, each for {@code duration} at one block size and queue depth on a
 * file of {@code fileBytes} (written end to end first, so the reads touch the device and the writes
 * follow a full file's worth of writing), through the live engine as the sweep is. A drive whose
 * write cache absorbs a 200 ms burst shows its lower long-run rate here.
 *
 * <p>It measures the drive, never a validation workload: the figures become the NVMe model's
 * device-wide ceilings only where they are lower than the sweep fit's ({@link #cap}).
 */
public final class SustainedRates {

    /**
     * The two rates and how they were measured.
     *
     * @param readBytesPerSecond  sequential reads, bytes per second over the whole run
     * @param writeBytesPerSecond sequential writes, bytes per second over the whole run
     */
    public record Rates(double readBytesPerSecond, double writeBytesPerSecond, int blockBytes, int queueDepth, long durationMs,
                        long fileBytes, String backend) {

        /** One line for a profile header. */
        public String describe() {
            return String.format(Locale.ROOT, "sustained sequential rates over %,d ms each at %d KiB × queue depth %d on a %,d MiB file"
                            + " (%s): writes %,.0f B/s, reads %,.0f B/s", durationMs, blockBytes >> 10, queueDepth, fileBytes >> 20,
                    backend, writeBytesPerSecond, readBytesPerSecond);
        }
    }

    private SustainedRates() {
    }

    /** Measures both directions; the file is deleted after. */
    public static Rates measure(Path file, long fileBytes, int blockBytes, int queueDepth, Duration duration, long seed)
            throws IOException {
        SweepSettings settings = new SweepSettings(file, fileBytes,
                List.of(BenchCase.Access.SEQUENTIAL_WRITE, BenchCase.Access.SEQUENTIAL_READ), List.of(blockBytes),
                List.of(queueDepth), duration, 1, SweepSettings.Backend.BEST, seed);
        CalibrationSweep.SweepResult result;
        try {
            result = CalibrationSweep.run(settings, point -> { });
        } finally {
            CalibrationSweep.deleteFile(file);
        }
        double read = 0;
        double write = 0;
        for (MeasuredPoint point : result.runs()) {
            if (point.benchCase().access().write()) {
                write = point.bytesPerSecond();
            } else {
                read = point.bytesPerSecond();
            }
        }
        return new Rates(read, write, blockBytes, queueDepth, duration.toMillis(), fileBytes, result.backendName());
    }

    /**
     * The swept profile with each device-wide ceiling lowered to the sustained rate where that is
     * lower (a ceiling of 0, none, is always lowered); a sustained rate above the sweep's ceiling
     * changes nothing, since the sweep's points already bound the drive there.
     */
    public static NvmeProfile cap(NvmeProfile swept, Rates sustained) {
        return swept.withCeilings(lower(swept.maxReadBytesPerSecond(), sustained.readBytesPerSecond()),
                lower(swept.maxWriteBytesPerSecond(), sustained.writeBytesPerSecond()));
    }

    private static double lower(double ceiling, double sustained) {
        if (!(sustained > 0)) {
            return ceiling;
        }
        return ceiling <= 0 ? sustained : Math.min(ceiling, sustained);
    }
}
