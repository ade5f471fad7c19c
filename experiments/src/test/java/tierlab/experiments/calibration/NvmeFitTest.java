package tierlab.experiments.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.sim.device.NvmeModel;
import tierlab.sim.device.NvmeProfile;

class NvmeFitTest {

    /** Measures the model itself at several sizes and depths, then recovers its parameters. */
    @Test
    void recoversTheParametersOfAKnownDevice() {
        NvmeProfile truth = new NvmeProfile(4, 64, 80_000, 500e6, 25_000, 300e6, "none");
        List<NvmeFit.Measurement> measurements = new ArrayList<>();
        for (boolean read : new boolean[] {true, false}) {
            for (long bytes : new long[] {4096, 65_536, 131_072, 1 << 20, 2 << 20}) {
                for (int qd : new int[] {1, 8, 32}) {
                    NvmeModel model = new NvmeModel(truth, 1);
                    // A closed loop keeping qd commands in flight for 2,000 completions.
                    long[] submittedAt = new long[qd];
                    long[] completesAt = new long[qd];
                    for (int i = 0; i < qd; i++) {
                        completesAt[i] = model.submit(read, bytes, 0);
                    }
                    long now = 0;
                    double latencySum = 0;
                    int done = 0;
                    while (done < 2_000) {
                        int slot = 0;
                        for (int i = 1; i < qd; i++) {
                            if (completesAt[i] < completesAt[slot]) {
                                slot = i;
                            }
                        }
                        now = completesAt[slot];
                        latencySum += now - submittedAt[slot];
                        done++;
                        submittedAt[slot] = now;
                        completesAt[slot] = model.submit(read, bytes, now);
                    }
                    double throughput = (double) done * bytes / (now / 1e9);
                    double latency = latencySum / done;
                    measurements.add(new NvmeFit.Measurement(read, bytes, qd, throughput, latency));
                }
            }
        }
        NvmeProfile fitted = NvmeFit.fit(measurements, 64);
        assertEquals(80_000, fitted.readBaseLatencyNs(), 800);
        assertEquals(500e6, fitted.readBytesPerSecondPerChannel(), 5e6);
        assertEquals(25_000, fitted.writeBaseLatencyNs(), 250);
        assertEquals(300e6, fitted.writeBytesPerSecondPerChannel(), 3e6);
        assertEquals(4, fitted.channels());
        assertTrue(NvmeFit.fitDirection(measurements, true).rSquared() > 0.999);
    }

    @Test
    void tooFewPointsIsAClearError() {
        List<NvmeFit.Measurement> one = List.of(new NvmeFit.Measurement(true, 4096, 1, 1e8, 50_000));
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> NvmeFit.fit(one, 32));
        assertTrue(error.getMessage().contains("queue-depth-1"));
    }
}
