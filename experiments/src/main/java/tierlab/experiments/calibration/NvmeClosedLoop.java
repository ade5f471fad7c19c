package tierlab.experiments.calibration;

import java.util.Arrays;
import tierlab.metrics.Percentiles;
import tierlab.sim.device.NvmeModel;
import tierlab.sim.device.NvmeProfile;

/**
 * Runs the {@link NvmeModel} the way the calibration benchmark runs the real device: a closed loop
 * of {@code queueDepth} commands of one size, each completion immediately submitting the next,
 * for a fixed number of completions. The result is directly comparable with a measured point.
 *
 * <p>The first {@code 2 × queueDepth} completions are a warm-up and not counted: at the start every
 * slot is submitted at once, so the first commands wait less than in the steady state.
 *
 * <p>Virtual time only: every command's completion time is known when it is submitted, so the
 * loop just advances to the earliest outstanding completion (the lowest slot on a tie, so the run
 * is a pure function of its inputs).
 */
public final class NvmeClosedLoop {

    /** What the model predicts for one point. Latencies are per command, submission to completion. */
    public record Prediction(double iops, double bytesPerSecond, double meanLatencyNs, double p50LatencyNs,
                             double p99LatencyNs) {}

    private NvmeClosedLoop() {}

    /** Completions per prediction: enough for a steady state at queue depth 64 and a stable p99. */
    public static int defaultCompletions(int queueDepth) {
        return Math.max(2_000, 50 * queueDepth);
    }

    /** Predicts one point with a fresh model seeded with {@code seed} (jitter draws, if the profile has any). */
    public static Prediction predict(NvmeProfile profile, boolean read, long transferBytes, int queueDepth, long seed) {
        return predict(profile, read, transferBytes, queueDepth, defaultCompletions(queueDepth), seed);
    }

    public static Prediction predict(NvmeProfile profile, boolean read, long transferBytes, int queueDepth, int completions,
                                     long seed) {
        if (transferBytes <= 0) {
            throw new IllegalArgumentException("prediction: transferBytes must be > 0, was " + transferBytes);
        }
        if (queueDepth < 1) {
            throw new IllegalArgumentException("prediction: queueDepth must be >= 1, was " + queueDepth);
        }
        if (completions < 1) {
            throw new IllegalArgumentException("prediction: completions must be >= 1, was " + completions);
        }
        NvmeModel model = new NvmeModel(profile, seed);
        long[] submittedAtNs = new long[queueDepth];
        long[] completesAtNs = new long[queueDepth];
        for (int slot = 0; slot < queueDepth; slot++) {
            completesAtNs[slot] = model.submit(read, transferBytes, 0);
        }
        int warmUp = 2 * queueDepth;
        long[] latenciesNs = new long[completions];
        long nowNs = 0;
        long measuredFromNs = 0;
        double latencySumNs = 0;
        for (int done = -warmUp; done < completions; done++) {
            int slot = 0;
            for (int i = 1; i < queueDepth; i++) {
                if (completesAtNs[i] < completesAtNs[slot]) {
                    slot = i;
                }
            }
            nowNs = completesAtNs[slot];
            long latencyNs = nowNs - submittedAtNs[slot];
            if (done >= 0) {
                latenciesNs[done] = latencyNs;
                latencySumNs += latencyNs;
            } else if (done == -1) {
                measuredFromNs = nowNs;
            }
            submittedAtNs[slot] = nowNs;
            completesAtNs[slot] = model.submit(read, transferBytes, nowNs);
        }
        Arrays.sort(latenciesNs);
        double seconds = (nowNs - measuredFromNs) / 1e9;
        double iops = completions / seconds;
        return new Prediction(iops, iops * transferBytes, latencySumNs / completions, Percentiles.nearestRank(latenciesNs, 50),
                Percentiles.nearestRank(latenciesNs, 99));
    }
}
