package tierlab.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.commons.math3.distribution.ExponentialDistribution;
import org.apache.commons.math3.random.Well19937c;
import org.junit.jupiter.api.Test;

/** The NVMe model against queueing theory's closed forms. */
class NvmeQueueingTest {

    /**
     * One channel, deterministic service, Poisson arrivals: M/D/1. Pollaczek–Khinchine gives the
     * mean wait W = ρ / (2μ(1 − ρ)) with μ the service rate and ρ = λ/μ.
     */
    @Test
    void oneChannelWithPoissonArrivalsMatchesMD1MeanWaitWithinTwoPercent() {
        long bytes = 128 * 1024;
        NvmeProfile profile = new NvmeProfile(1, 64, 20_000, 1e9, 10_000, 1e9, "none");
        for (double rho : new double[] {0.3, 0.6, 0.8}) {
            NvmeModel nvme = new NvmeModel(profile, 1);
            long serviceNs = nvme.serviceNs(true, bytes);
            double lambdaPerNs = rho / serviceNs;
            ExponentialDistribution gaps = new ExponentialDistribution(new Well19937c(42), 1 / lambdaPerNs);
            long arrivalNs = 0;
            int commands = 2_000_000;
            for (int i = 0; i < commands; i++) {
                arrivalNs += Math.round(gaps.sample());
                nvme.submit(true, bytes, arrivalNs);
            }
            double measuredWaitNs = (double) nvme.queueWaitNs() / commands;
            double closedFormWaitNs = rho * serviceNs / (2 * (1 - rho));
            assertEquals(closedFormWaitNs, measuredWaitNs, 0.02 * closedFormWaitNs, "rho " + rho);
        }
    }

    @Test
    void channelsServeInParallelAndQueueDepthCapsThem() {
        NvmeProfile wide = new NvmeProfile(4, 64, 0, 1e9, 0, 1e9, "none");
        NvmeProfile shallow = new NvmeProfile(4, 1, 0, 1e9, 0, 1e9, "none");
        NvmeModel parallel = new NvmeModel(wide, 1);
        NvmeModel serial = new NvmeModel(shallow, 1);
        long lastParallel = 0;
        long lastSerial = 0;
        for (int i = 0; i < 8; i++) {
            lastParallel = Math.max(lastParallel, parallel.submit(true, 1_000_000, 0));
            lastSerial = Math.max(lastSerial, serial.submit(true, 1_000_000, 0));
        }
        assertEquals(2 * 1_000_000, lastParallel, "8 commands of 1 ms on 4 channels end at 2 ms");
        assertEquals(8 * 1_000_000, lastSerial, "queue depth 1 serialises them");
    }

    @Test
    void exponentialJitterKeepsTheMeanAndIsSeeded() {
        NvmeProfile jittery = new NvmeProfile(1, 1, 50_000, 1e12, 50_000, 1e12, "exponential");
        NvmeModel a = new NvmeModel(jittery, 7);
        NvmeModel b = new NvmeModel(jittery, 7);
        double sum = 0;
        for (int i = 0; i < 200_000; i++) {
            long sa = a.serviceNs(true, 0);
            assertEquals(sa, b.serviceNs(true, 0), "same seed, same draws");
            sum += sa;
        }
        assertEquals(50_000, sum / 200_000, 50_000 * 0.02);
    }
}
