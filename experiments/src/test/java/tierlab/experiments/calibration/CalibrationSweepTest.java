package tierlab.experiments.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tierlab.bench.BenchCase;
import tierlab.engine.IoUringBackend;
import tierlab.model.testkit.TestDirectories;

/** A tiny sweep on a real file under target/ (O_DIRECT there; /tmp may be tmpfs). */
class CalibrationSweepTest {

    private Path dir;

    @BeforeEach
    void createDirectory() throws IOException {
        dir = TestDirectories.underTarget("calibration-sweep-");
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        CalibrationSweep.deleteFile(dir.resolve("l2.bin"));
        Files.deleteIfExists(dir);
    }

    @Test
    void everyPointAndRepeatIsMeasuredWithConsistentFigures() throws IOException {
        SweepSettings settings = SweepSettings.quick(dir.resolve("l2.bin"))
                .withGrid(List.of(BenchCase.Access.RANDOM_READ, BenchCase.Access.SEQUENTIAL_WRITE), List.of(4096, 65_536), List.of(1, 4))
                .withTiming(Duration.ofMillis(40), 2);
        List<MeasuredPoint> seen = new ArrayList<>();
        CalibrationSweep.SweepResult result = CalibrationSweep.run(settings, seen::add);

        assertEquals(16, result.runs().size());
        assertEquals(result.runs(), seen);
        // Repeat 2 walks the grid backwards, so a drift of the disk does not always hit the same points.
        assertEquals(result.runs().get(7).benchCase(), result.runs().get(8).benchCase());
        for (MeasuredPoint p : result.runs()) {
            assertTrue(p.ops() > 0 && p.bytes() == p.ops() * p.benchCase().blockBytes(), p.toString());
            assertEquals(p.ops() / (p.elapsedNs() / 1e9), p.iops(), p.iops() * 1e-9, p.toString());
            assertEquals(p.iops() * p.benchCase().blockBytes(), p.bytesPerSecond(), p.bytesPerSecond() * 1e-9, p.toString());
            assertTrue(p.p50LatencyNs() > 0 && p.p50LatencyNs() <= p.p99LatencyNs(), p.toString());
            if (result.backendName().equals("io_uring")) {
                assertTrue(p.enterCalls() > 0, "io_uring runs count their io_uring_enter calls: " + p);
            }
        }
        List<MeasuredPoint> medians = result.medians();
        assertEquals(8, medians.size());
        assertTrue(medians.stream().allMatch(p -> p.repeat() == 0));
        assertEquals(IoUringBackend.probe().available() ? "io_uring" : "filechannel", result.backendName());
        assertFalse(result.backendStatus().isBlank());
    }

    @Test
    void theFileChannelBackendMeasuresToo() throws IOException {
        SweepSettings settings = SweepSettings.quick(dir.resolve("l2.bin"))
                .withGrid(List.of(BenchCase.Access.RANDOM_WRITE), List.of(8192), List.of(2))
                .withBackend(SweepSettings.Backend.FILE_CHANNEL)
                .withTiming(Duration.ofMillis(30), 1);
        CalibrationSweep.SweepResult result = CalibrationSweep.run(settings, null);
        assertEquals("filechannel", result.backendName());
        assertEquals(1, result.runs().size());
        assertEquals(0, result.runs().getFirst().enterCalls());
        assertTrue(result.runs().getFirst().ops() >= 2);
    }

    @Test
    void theMedianOfThreeRepeatsIsTakenPerField() {
        BenchCase c = new BenchCase(BenchCase.Access.RANDOM_READ, 4096, 1);
        List<MeasuredPoint> runs = List.of(
                new MeasuredPoint(c, 1, 10, 40_960, 1_000, 100, 409_600, 30, 20, 90, 12),
                new MeasuredPoint(c, 2, 30, 122_880, 3_000, 300, 1_228_800, 10, 10, 70, 36),
                new MeasuredPoint(c, 3, 20, 81_920, 2_000, 200, 819_200, 20, 30, 80, 24));
        MeasuredPoint median = MeasuredPoint.medians(runs).getFirst();
        assertEquals(new MeasuredPoint(c, 0, 20, 81_920, 2_000, 200, 819_200, 20, 20, 80, 24), median);
    }

    @Test
    void badSettingsNameTheField() {
        Path file = dir.resolve("l2.bin");
        IllegalArgumentException e1 = assertThrows(IllegalArgumentException.class,
                () -> SweepSettings.quick(file).withGrid(List.of(BenchCase.Access.RANDOM_READ), List.of(5000), List.of(1)));
        assertTrue(e1.getMessage().contains("sweep.blockSizesBytes"), e1.getMessage());
        IllegalArgumentException e2 = assertThrows(IllegalArgumentException.class,
                () -> SweepSettings.quick(file).withGrid(List.of(BenchCase.Access.RANDOM_READ), List.of(4096), List.of()));
        assertTrue(e2.getMessage().contains("sweep.queueDepths"), e2.getMessage());
        IllegalArgumentException e3 = assertThrows(IllegalArgumentException.class,
                () -> SweepSettings.quick(file).withTiming(Duration.ofMillis(100), 0));
        assertTrue(e3.getMessage().contains("sweep.repeats"), e3.getMessage());
    }
}
