package tierlab.experiments.run;

import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import tierlab.experiments.calibration.CalibrationSection;
import tierlab.model.geometry.ModelSection;
import tierlab.workload.SyntheticSettings;

/**
 * An experiment file as written (YAML or JSON). Every field is optional unless the resolver says
 * otherwise; a missing field takes the default documented in {@code experiments/catalog/README.md}.
 * Unknown fields are refused (a misspelt knob must not silently run the default), and so are values
 * of the wrong type. Sizes carry their unit in the field name.
 *
 * @param name             the output folder's name under {@code out/}; lower-case letters, digits, dashes
 * @param label            a free name for a group of settings, usually swept alongside them
 *                         ({@code label: [moderate]} in one grid, {@code [stress]} in another) so charts
 *                         and tables can tell the groups apart; it changes nothing in a run
 * @param kind             {@code simulation} (default) or {@code calibration} (E5: measure the drive, fit a profile)
 * @param mode             {@code sim} (default), {@code hybrid} or {@code live}
 * @param seeds            one run per seed per sweep point [42]
 * @param device           a bundled profile name or a profile file path [qwen3-8b-h100]
 * @param sweep            axis (a dotted field path such as {@code store.policy}) → the values it takes;
 *                         the runner runs every combination. A list of such maps is the union of
 *                         their grids (a field a grid does not sweep keeps the file's value)
 * @param sampleIntervalMs period of the L1 occupancy / queue-depth time series in virtual ms [100]
 * @param checkInvariants  call every structure's {@code checkInvariants()} after each step (slow) [false];
 *                         they are always checked once at the end of a run
 * @param sameInstantArrivalsTogether sim and hybrid: hand every request that arrives at one instant to the
 *                         engine before it ticks, as the live loop does, instead of ticking after each one [false:
 *                         every catalogue result was computed that way]; {@code tierlab validate}'s workloads turn it on
 * @param live             live mode's GPU side: {@code gpu} and {@code verify} ({@link LiveSection})
 * @param maxRuns          the most runs (sweep points × seeds) the file may ask for [10,000]: a grid is
 *                         counted before it is expanded, and a larger one is refused unless this is raised
 * @param model            the model: a preset ({@code {preset: qwen3-8b}}), a preset with fields overridden, or
 *                         every field (docs/models.md); instead of {@code workload.model}
 * @param gpu              the GPU's compute model ({@link GpuSection}) [the device profile's]
 */
public record ExperimentFile(String name, String description, String label, String kind, String mode, List<Long> seeds,
                             WorkloadSection workload, StoreSection store, SchedulerSection scheduler, String device,
                             FaultSection faults, JsonNode sweep,
                             List<ChartSection> charts, ReferenceSection reference, Double sampleIntervalMs,
                             Boolean checkInvariants, Boolean sameInstantArrivalsTogether, MissRatioSection missRatioCurve,
                             CalibrationSection calibration, LiveSection live, Long maxRuns, ModelSection model,
                             GpuSection gpu) {

    /**
     * The run sections alone, as a file of another kind embeds them (a {@code tierlab validate}
     * workload): no sweep, charts, reference or output settings.
     */
    public static ExperimentFile ofRun(String mode, String device, WorkloadSection workload, StoreSection store,
                                       SchedulerSection scheduler, Boolean sameInstantArrivalsTogether) {
        return new ExperimentFile(null, null, null, null, mode, null, workload, store, scheduler, device, null, null, null, null,
                null, null, sameInstantArrivalsTogether, null, null, null, null, null, null);
    }

    /**
     * The GPU side of a run (docs/compute.md).
     *
     * @param compute the compute model that prices each engine step
     */
    public record GpuSection(ComputeChoice compute) {}

    /**
     * Which compute model prices the engine's steps.
     *
     * @param kind    {@code linear} [default: the device profile's four terms], {@code roofline} or {@code table}
     *                ({@code tierlab.sim.device.ComputeModels})
     * @param profile a compute profile file ({@code tierlab compute fit} writes one; a {@code .csv} is a table),
     *                relative to the experiment file's folder; needed by {@code roofline} and {@code table}
     */
    public record ComputeChoice(String kind, String profile) {}

    /**
     * Live mode's GPU side (docs/cuda.md).
     *
     * @param gpu    {@code auto}: CUDA when libcudart and a device are present, else host buffers (the
     *               run says which and why); {@code cuda}: a run without a usable device fails, saying why;
     *               {@code host}: host buffers [auto]
     * @param verify with CUDA: compute steps write the payload pattern into device memory, staging copies
     *               are checked in L1, and every load is copied back from the GPU and compared; the counts
     *               are the run's {@code run.realMatches}/{@code run.realMismatches}. Host buffers always
     *               verify [true]
     */
    public record LiveSection(String gpu, Boolean verify) {}

    /**
     * What requests arrive.
     *
     * @param type               {@code long-prefill} (cold pass, then the same prompts again), {@code mooncake}
     *                           (a production trace), {@code qwen} or {@code azure} (the other public traces,
     *                           docs/traces.md) or {@code synthetic}
     * @param preset             for long-prefill: {@code e1}, {@code e2} or {@code e3} (docs/experiments.md), whose
     *                           prompt counts and lengths the other fields then override
     * @param promptSpreadTokens long-prefill: lengths are uniform in promptTokens ± spread, their sum pinned
     * @param warmPass           long-prefill: run the warm pass after the cold one [true]
     * @param arrivalSpacingMs   long-prefill: gap between arrivals within a pass [0 = all at once]
     * @param warmGapMs          long-prefill: idle time between the cold pass's end and the warm pass [1000]
     * @param blockTokens        tokens per KV block [16; mooncake 16; e2 128]
     * @param model              the model shape [qwen3-8b]
     * @param tp                 tensor-parallel lanes: each block is stored as this many lane slices [1]
     * @param trace              mooncake, qwen, azure: the trace file, relative to the experiment file's folder or absolute
     * @param requestLimit       mooncake: replay only the first N requests [0 = all]
     * @param timeScale          mooncake: multiply arrival times (2 = half the rate) [1]
     * @param clientConcurrency  long-prefill: send each pass as a closed-loop client with this many requests
     *                           outstanding (how the reference benchmarks measured TTFT) [0 = all at once]
     * @param azure              azure: the prefix synthesis model's settings
     */
    public record WorkloadSection(String type, String preset, Integer prompts, Long promptTokens,
                                  Long promptSpreadTokens, Long outputTokens, Boolean warmPass,
                                  Double arrivalSpacingMs, Double warmGapMs, Integer blockTokens, String model,
                                  String trace, Long requestLimit, Double timeScale, SyntheticSettings synthetic,
                                  Integer clientConcurrency, Integer tp, AzureSection azure) {}

    /**
     * azure: the seeded model that gives the trace's prompts block ids (docs/traces.md); every field
     * is optional, the defaults are {@code AzureSynthesis.DEFAULT}'s.
     */
    public record AzureSection(Long seed, Integer blockTokens, Integer prefixGroups, Double zipfExponent,
                               Long maxSharedPrefixTokens, Double followUpProbability, Integer followUpWindow) {}

    /**
     * The tiered store. {@code baseline} replaces the store by one of the two comparison points:
     * {@code no-offload} (recompute every prompt) or {@code host-memory} (an L1 large enough for all
     * of the workload's KV and free L2, how the usual alternative was configured). {@code l2File}:
     * live mode only, a persistent L2 file (relative to the experiment file's folder) that the run
     * starts warm from when its index is valid and keeps, with its index, for the next run.
     *
     * @param l2WritePolicy {@code write-through} [default], {@code write-back} or {@code write-after-hits:N}
     *                      ({@code tierlab.model.store.L2WritePolicy})
     * @param l2Admission   {@code none} [default], {@code frequency:N} or {@code doorkeeper}
     *                      ({@code tierlab.model.store.L2Admission})
     * @param l1LimitGiB  hybrid and live: the most L1 a run may allocate, instead of what the host allows
     *                    (HostLimits: 75% of MemAvailable; live also RLIMIT_MEMLOCK without CAP_IPC_LOCK)
     * @param l2LimitGiB  hybrid and live: the largest L2 file a run may write, instead of the free space
     *                    where the file goes
     * @param l2FileOverwrite with {@code l2File}: write over an existing file or block device that does not
     *                    carry tierlab's identity (refused otherwise) [false]
     * @param policyKnobs every other field: the replacement policies' knobs by their declared names
     *                    ({@code mruInterval}, ...), checked by the loader against the policy registry, so
     *                    a policy's new knob needs no field here
     */
    public record StoreSection(Double l1CapacityGiB, Double l2CapacityGiB, String policy,
                               Boolean promotionsAsHeadroom, Double headroomFraction, Integer ringCount,
                               Boolean batchL2Reads, Double writeBatchMaxMiB, Integer stagingSlots,
                               Boolean contiguousStaging, List<String> knownBugs, String baseline, String l2File,
                               String l2WritePolicy, String l2Admission, Double l1LimitGiB, Double l2LimitGiB,
                               Boolean l2FileOverwrite, @JsonAnySetter Map<String, JsonNode> policyKnobs) {
        public StoreSection {
            policyKnobs = policyKnobs == null ? Map.of() : policyKnobs;
        }

        /** A section with every field unset. */
        static StoreSection empty() {
            return new StoreSection(null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                    null, null, null, null, null);
        }
    }

    /**
     * Fault injection (the fault model is documented in {@code tierlab.sim.fault.FaultSettings}):
     * per-operation probabilities, and times in milliseconds of virtual time.
     */
    public record FaultSection(Double readErrorProbability, Double writeErrorProbability, Double shortReadProbability,
                               Double latencySpikeProbability, Double latencySpikeMs, Double reorderWindowMs,
                               Double stuckProbability, Double stuckForMs, List<Long> failReadTickets) {}

    /**
     * The serving engine and its step loop's knobs.
     *
     * @param engine a serving engine by its registry name ({@code tierlab.model.serving.ServingEngines}) [vllm]
     * @param prefixCaching automatic prefix caching of GPU blocks, for engines with a GPU prefix cache
     *                      ({@code vllm-v1}) [true]; engines without a GPU prefix cache ignore it
     * @param prefetchStop  when a prefetch stops being waited for: {@code wait-complete} [default], {@code best-effort}
     *                      or {@code timeout:BASE_MS+PER_1K_MS} ({@code tierlab.model.serving.PrefetchStop})
     * @param loadLayerGroups a load is copied in this many layer groups, overlapping compute [1]
     * @param hostWritePolicy when GPU pages are saved to the store, for {@code sglang}: {@code write-through} [default],
     *                        {@code write-after-hits:N} or {@code write-back}; other engines ignore it
     * @param waitingOrder    the waiting queue's order, for {@code sglang}: {@code lpm} [default] or {@code fcfs}
     * @param saveTiming      for {@code vllm} and {@code vllm-v1}: {@code after-step} [default] or {@code in-step} (a step
     *                        ends only once its saves are staged, vLLM's {@code wait_for_save}); other engines ignore it
     */
    public record SchedulerSection(Integer concurrency, Long maxBatchedTokens, Long gpuKvBlocks,
                                   Integer prefetchMaxRequests, Boolean allL1Bypass, String engine, Boolean prefixCaching,
                                   String prefetchStop, Integer loadLayerGroups, String hostWritePolicy,
                                   String waitingOrder, String saveTiming) {}

    /**
     * One chart. {@code type}: {@code line} (x numeric), {@code bar} (x categorical), {@code heatmap}
     * (x and y axes, z the metric), {@code cdf} (per-request TTFT of {@code pass}), {@code timeseries}
     * ({@code y} a sampled quantity over virtual time). {@code series} splits lines by another
     * parameter; {@code where} keeps only runs whose parameters have the given values; {@code xLabel}
     * and {@code yLabel} replace the axis titles (by default the parameter and metric names).
     */
    public record ChartSection(String type, String file, String title, String x, String y, String z, String series,
                               String pass, Map<String, JsonNode> where, Boolean logX, Boolean logY,
                               String xLabel, String yLabel, String aggregate, String style, String errorBars) {}

    /**
     * What the reference system measured, and how tierlab's runs line up against it: {@code rows} put a
     * reference figure beside a mean of the runs, {@code checks} are claims the report evaluates against
     * results.csv (PASS or FAIL), and {@code discussion} is prose that refers to them without figures of its own.
     */
    public record ReferenceSection(String source, List<ReferenceRow> rows, List<ReferenceCheck> checks, String discussion) {}

    /**
     * One line of the comparison table: the reference's figure as text, tierlab's as the mean of
     * {@code metric} over the runs matching {@code where}. {@code fitted}: tierlab's figure comes from a
     * profile fitted to this same reference figure, so the two agree by construction, not by prediction;
     * {@code fittedFrom} says what was fitted (shown in the table).
     */
    public record ReferenceRow(String label, String reference, String metric, Map<String, JsonNode> where,
                               Boolean fitted, String fittedFrom) {}

    /**
     * A claim about the runs that the report evaluates against results.csv ({@link ReferenceChecks}):
     * the mean of {@code metric} over the runs matching {@code where} (divided by the mean of
     * {@code ratioTo}'s selection, or less the mean of {@code differenceTo}'s, when one is given) compared with {@code near} (within {@code tolerance}, a
     * fraction of {@code |near|}), or with an upper bound ({@code below}: &lt;, {@code atMost}: &le;), a
     * lower bound ({@code above}: &gt;, {@code atLeast}: &ge;) or one of each. {@code fitted} and
     * {@code fittedFrom} as for a row: a check that holds by construction says so.
     */
    public record ReferenceCheck(String claim, String metric, Map<String, JsonNode> where, Double near, Double tolerance,
                                 Double below, Double atMost, Double above, Double atLeast, OtherRuns ratioTo,
                                 OtherRuns differenceTo,
                                 Boolean fitted, String fittedFrom) {}

    /**
     * The other side of a relative check ({@code ratioTo}, {@code differenceTo}): the mean of {@code metric}
     * (the check's own when omitted) over the runs matching {@code where}.
     */
    public record OtherRuns(String metric, Map<String, JsonNode> where) {}

    /**
     * Block-level miss-ratio curves of the workload (each trace of the grid at its own blocks), beside
     * the simulated runs; a policy is a name or a name with knobs ({@code s3-fifo:ghostRatio=0.9}).
     */
    public record MissRatioSection(List<String> policies, List<Long> capacitiesBlocks) {}
}
