package tierlab.experiments.run;

import java.nio.file.Path;
import tierlab.model.geometry.Geometry;
import tierlab.sim.workload.LongPrefillSettings;
import tierlab.sim.workload.MooncakeWorkload;
import tierlab.sim.workload.SyntheticSettings;

/** A resolved workload: what the run generates its requests from (the seed comes with the run). */
public sealed interface WorkloadPlan {

    Geometry geometry();

    /** The passes the run reports, in order. */
    java.util.List<String> passes();

    /**
     * Cold pass, then (optionally) the same prompts again after {@code warmGapNs} of idle time;
     * {@code clientConcurrency} > 0 sends each pass closed-loop instead of at the arrival times.
     */
    record LongPrefill(LongPrefillSettings settings, Geometry geometry, boolean warmPass, long warmGapNs,
                       int clientConcurrency)
            implements WorkloadPlan {
        @Override
        public java.util.List<String> passes() {
            return warmPass ? java.util.List.of("cold", "warm") : java.util.List.of("cold");
        }
    }

    /** A Mooncake JSONL trace, re-blocked to the geometry's block size. */
    record Mooncake(Path trace, MooncakeWorkload.Options options, Geometry geometry) implements WorkloadPlan {
        @Override
        public java.util.List<String> passes() {
            return java.util.List.of("all");
        }
    }

    /** Generated arrivals, lengths, shared prefixes and sessions. */
    record Synthetic(SyntheticSettings settings, Geometry geometry) implements WorkloadPlan {
        @Override
        public java.util.List<String> passes() {
            return java.util.List.of("all");
        }
    }
}
