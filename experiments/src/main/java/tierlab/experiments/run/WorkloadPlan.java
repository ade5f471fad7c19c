package tierlab.experiments.run;

import java.nio.file.Path;
import tierlab.model.geometry.Geometry;
import tierlab.workload.AzureSynthesis;
import tierlab.workload.AzureTraceReader;
import tierlab.workload.LongPrefillSettings;
import tierlab.workload.MooncakeWorkload;
import tierlab.workload.RequestTrace;
import tierlab.workload.SyntheticSettings;
import tierlab.workload.TraceFormats;

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

    /**
     * A request trace of another format (qwen, azure), re-blocked to the geometry's block size;
     * {@code synthesis} gives an azure trace's prompts their block ids (null for the others).
     */
    record Trace(Path trace, String format, AzureSynthesis synthesis, MooncakeWorkload.Options options, Geometry geometry)
            implements WorkloadPlan {
        @Override
        public java.util.List<String> passes() {
            return java.util.List.of("all");
        }

        /** Reads the trace in its format. */
        public RequestTrace read() {
            return synthesis != null ? AzureTraceReader.read(trace, synthesis)
                    : TraceFormats.FORMATS.get("workload.type", format).read(trace);
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
