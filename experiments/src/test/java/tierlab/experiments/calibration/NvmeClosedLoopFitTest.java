package tierlab.experiments.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.NvmeProfile;

/** The closed-loop fit over every queue depth, the closed-loop predictor, and the profile file round trip. */
class NvmeClosedLoopFitTest {
    @TempDir
    Path dir;

    private static final long[] SIZES = {4096, 16_384, 65_536, 131_072, 524_288, 1 << 20, 2 << 20};
    private static final int[] DEPTHS = {1, 4, 16, 64};

    /** Measurements of the model itself at the calibration grid, through the predictor. */
    private static List<NvmeFit.Measurement> measure(NvmeProfile truth) {
        List<NvmeFit.Measurement> points = new ArrayList<>();
        for (boolean read : new boolean[] {true, false}) {
            for (long bytes : SIZES) {
                for (int qd : DEPTHS) {
                    NvmeClosedLoop.Prediction p = NvmeClosedLoop.predict(truth, read, bytes, qd, 1);
                    points.add(new NvmeFit.Measurement(read, bytes, qd, p.bytesPerSecond(), p.meanLatencyNs()));
                }
            }
        }
        return points;
    }

    @Test
    void thePredictorMatchesTheClosedForm() {
        NvmeProfile profile = new NvmeProfile(8, 64, 50_000, 400e6, 20_000, 250e6, "none");
        long bytes = 131_072;
        double serviceNs = 50_000 + Math.ceil(bytes * 1e9 / 400e6);
        for (int qd : DEPTHS) {
            NvmeClosedLoop.Prediction p = NvmeClosedLoop.predict(profile, true, bytes, qd, 1);
            double iops = Math.min(qd, 8) / serviceNs * 1e9;
            assertEquals(iops, p.iops(), iops * 0.01, "IOPS at QD " + qd);
            assertEquals(serviceNs * Math.max(1.0, qd / 8.0), p.meanLatencyNs(), serviceNs * 0.02, "latency at QD " + qd);
            assertEquals(p.iops() * bytes, p.bytesPerSecond(), 1e-6 * p.bytesPerSecond());
        }
    }

    @Test
    void recoversEveryParameterOfAKnownDevice() {
        NvmeProfile truth = new NvmeProfile(12, 64, 85_000, 520e6, 30_000, 310e6, "none");
        NvmeFit.ClosedLoopFit fit = NvmeFit.fitClosedLoop(measure(truth), 64);
        NvmeProfile fitted = fit.profile();
        assertEquals(12, fitted.channels());
        assertEquals(85_000, fitted.readBaseLatencyNs(), 85_000 * 0.01);
        assertEquals(520e6, fitted.readBytesPerSecondPerChannel(), 520e6 * 0.01);
        assertEquals(30_000, fitted.writeBaseLatencyNs(), 30_000 * 0.01);
        assertEquals(310e6, fitted.writeBytesPerSecondPerChannel(), 310e6 * 0.01);
        assertTrue(fit.rmsLogError() < 0.01, "rms log error " + fit.rmsLogError());
        assertEquals(0, fitted.maxReadBytesPerSecond(), "no ceiling binds on a device without one");
        assertEquals(0, fitted.maxWriteBytesPerSecond());
        assertEquals(64, fit.errorByChannels().size());
        assertTrue(fit.errorByChannels().get(5) > 10 * fit.rmsLogError(), "6 channels fits clearly worse: " + fit.errorByChannels());
    }

    /** Multiplicative noise of ±15% on every point still gives each parameter within 10%. */
    @Test
    void noisyMeasurementsStillGiveTheParametersWithinTenPercent() {
        NvmeProfile truth = new NvmeProfile(6, 64, 60_000, 700e6, 25_000, 400e6, "none");
        List<NvmeFit.Measurement> noisy = new ArrayList<>();
        java.util.SplittableRandom random = new java.util.SplittableRandom(7);
        for (NvmeFit.Measurement m : measure(truth)) {
            double factor = 1 + (random.nextDouble() - 0.5) * 0.3;
            noisy.add(new NvmeFit.Measurement(m.read(), m.transferBytes(), m.queueDepth(), m.bytesPerSecond() * factor,
                    m.meanLatencyNs() / factor));
        }
        NvmeProfile fitted = NvmeFit.fitClosedLoop(noisy, 64).profile();
        assertEquals(6, fitted.channels(), 1);
        assertEquals(60_000, fitted.readBaseLatencyNs(), 6_000);
        assertEquals(700e6, fitted.readBytesPerSecondPerChannel(), 70e6);
        assertEquals(25_000, fitted.writeBaseLatencyNs(), 2_500);
        assertEquals(400e6, fitted.writeBytesPerSecondPerChannel(), 40e6);
    }

    /** The closed form the fit uses agrees with the simulated closed loop, ceilings included. */
    @Test
    void theClosedFormAgreesWithTheSimulatedLoopUnderACeiling() {
        NvmeProfile profile = new NvmeProfile(8, 64, 50_000, 2e9, 20_000, 1e9, "none").withCeilings(3e9, 2.5e9);
        for (boolean read : new boolean[] {true, false}) {
            for (long bytes : SIZES) {
                for (int qd : DEPTHS) {
                    double simulated = NvmeClosedLoop.predict(profile, read, bytes, qd, 1).iops();
                    double closedForm = NvmeFit.closedLoopIops(profile, read, bytes, qd);
                    assertEquals(closedForm, simulated, 0.02 * closedForm, (read ? "read " : "write ") + bytes + " QD " + qd);
                }
            }
        }
    }

    /** A device whose large transfers hit a device-wide ceiling while small ones scale with 16 channels. */
    @Test
    void recoversTheCeilingsOfALinkBoundDevice() {
        NvmeProfile truth = new NvmeProfile(16, 64, 60_000, 1.5e9, 25_000, 1.2e9, "none").withCeilings(3.2e9, 2.1e9);
        NvmeFit.ClosedLoopFit fit = NvmeFit.fitClosedLoop(measure(truth), 64);
        NvmeProfile fitted = fit.profile();
        assertEquals(16, fitted.channels());
        assertEquals(3.2e9, fitted.maxReadBytesPerSecond(), 3.2e9 * 0.02);
        assertEquals(2.1e9, fitted.maxWriteBytesPerSecond(), 2.1e9 * 0.02);
        assertEquals(60_000, fitted.readBaseLatencyNs(), 60_000 * 0.02);
        assertEquals(1.5e9, fitted.readBytesPerSecondPerChannel(), 1.5e9 * 0.02);
        assertTrue(fit.rmsLogError() < 0.02, "rms log error " + fit.rmsLogError());
        NvmeFit.ClosedLoopFit without = NvmeFit.fitClosedLoop(measure(truth), 64, false);
        assertEquals(0, without.profile().maxReadBytesPerSecond());
        assertTrue(without.rmsLogError() > 5 * fit.rmsLogError(), "the channel model alone fits worse: " + without.rmsLogError());
    }

    @Test
    void aDirectionWithOneSizeIsAClearError() {
        List<NvmeFit.Measurement> points = List.of(
                new NvmeFit.Measurement(true, 4096, 1, 1e8, 40_000),
                new NvmeFit.Measurement(true, 1 << 20, 1, 1e9, 1_000_000),
                new NvmeFit.Measurement(false, 4096, 1, 1e8, 40_000));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NvmeFit.fitClosedLoop(points, 64));
        assertTrue(e.getMessage().contains("write") && e.getMessage().contains("two or more transfer sizes"), e.getMessage());
    }

    @Test
    void aFittedProfileRoundTripsThroughItsYamlFile() throws Exception {
        NvmeProfile fitted = NvmeFit.fitClosedLoop(measure(new NvmeProfile(3, 64, 70_123, 333e6, 21_000, 222e6, "none")
                .withCeilings(800e6, 0)), 64).profile();
        assertTrue(fitted.maxReadBytesPerSecond() > 0);
        DeviceProfile profile = DeviceProfile.preset("qwen3-8b-h100").withName("calibrated-test").withNvme(fitted);
        Path file = dir.resolve("fitted-profile.yaml");
        FittedProfiles.save(profile, file, "fitted by a test\nsecond line");
        String text = Files.readString(file);
        assertTrue(text.startsWith("# fitted by a test\n# second line\n"), text);
        assertTrue(text.contains("readBytesPerSecondPerChannel: " + (long) fitted.readBytesPerSecondPerChannel() + "\n"), text);
        assertEquals(profile, DeviceProfile.load(file));
    }
}
