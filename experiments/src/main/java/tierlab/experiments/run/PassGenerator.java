package tierlab.experiments.run;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import tierlab.model.request.RequestSpec;
import tierlab.model.util.SeedTree;
import tierlab.workload.LongPrefillPasses;
import tierlab.workload.MooncakeTrace;
import tierlab.workload.MooncakeTraceReader;
import tierlab.workload.MooncakeWorkload;
import tierlab.workload.RequestTrace;
import tierlab.workload.SyntheticWorkload;
import tierlab.experiments.CommandException;
import tierlab.workload.TraceException;
import tierlab.workload.TraceFormatException;
import tierlab.workload.TraceWorkload;

/** Generates each run's passes from its workload plan and seed; every trace file is read once per generator. */
final class PassGenerator {

    private final Map<Path, MooncakeTrace> traces = new ConcurrentHashMap<>();
    /** Traces of the other formats by file, format and synthesis settings: read once per experiment. */
    private final Map<String, RequestTrace> otherTraces = new ConcurrentHashMap<>();
    /** Where a trace's warnings go, once per trace read: the command's stderr. */
    private volatile Consumer<String> warnings = line -> System.err.println("tierlab: warning: " + line);

    void onWarning(Consumer<String> sink) {
        this.warnings = sink;
    }

    /** A trace of another format (qwen, azure), read once; its reader's warnings are told when it is read. */
    RequestTrace trace(WorkloadPlan.Trace plan) {
        return otherTraces.computeIfAbsent(plan.trace() + " " + plan.format() + " " + plan.synthesis(), key -> {
            RequestTrace read = plan.read();
            read.warnings().forEach(warnings);
            return read;
        });
    }

    RunPasses passes(RunConfig config) {
        RunPasses passes = generate(config);
        checkFitsTheGpu(config, passes);
        return passes;
    }

    private RunPasses generate(RunConfig config) {
        SeedTree seeds = new SeedTree(config.seed());
        return switch (config.workload()) {
            case WorkloadPlan.LongPrefill plan -> {
                LongPrefillPasses passes = new LongPrefillPasses(plan.settings(), plan.geometry(), new SeedTree(seeds.seedOf("workload")));
                List<List<RequestSpec>> requests = new ArrayList<>();
                requests.add(passes.coldPass());
                if (plan.warmPass()) {
                    // Placeholder arrival times: the warm pass is re-timed to start after the cold one ends.
                    requests.add(passes.warmPass(0));
                }
                yield new RunPasses(plan.passes(), requests, plan.warmGapNs(), plan.clientConcurrency());
            }
            case WorkloadPlan.Mooncake plan -> {
                MooncakeTrace trace = traces.computeIfAbsent(plan.trace(), MooncakeTraceReader::read);
                yield new RunPasses(plan.passes(), List.of(MooncakeWorkload.requests(trace, plan.geometry(), plan.options())), 0, 0);
            }
            case WorkloadPlan.Trace plan -> {
                RequestTrace trace = trace(plan);
                List<RequestSpec> requests = withTraceField(() -> TraceWorkload.requests(trace, plan.geometry(), plan.options()));
                yield new RunPasses(plan.passes(), List.of(requests), 0, 0);
            }
            case WorkloadPlan.Synthetic plan -> new RunPasses(plan.passes(),
                    List.of(SyntheticWorkload.generate(plan.settings(), plan.geometry(), new SeedTree(seeds.seedOf("workload")))), 0, 0);
        };
    }

    /**
     * Every request's prompt and output must fit the engine's GPU KV blocks at once, or the engine refuses
     * it mid-run. Checked before the run, naming the trace's line (or the request of a generated workload)
     * and the limit.
     */
    private void checkFitsTheGpu(RunConfig config, RunPasses passes) {
        long gpuKvBlocks = config.scheduler().gpuKvBlocks();
        int blockTokens = config.workload().geometry().blockTokens();
        for (List<RequestSpec> pass : passes.requests()) {
            for (RequestSpec request : pass) {
                long tokens = request.promptTokens() + request.outputTokens();
                long blocks = Math.ceilDiv(tokens, blockTokens);
                if (blocks <= gpuKvBlocks) {
                    continue;
                }
                String problem = String.format(Locale.ROOT, "%,d prompt + %,d output tokens need %,d GPU blocks of %d"
                        + " tokens, more than scheduler.gpuKvBlocks (%,d): a request may have at most %,d tokens here",
                        request.promptTokens(), request.outputTokens(), blocks, blockTokens, gpuKvBlocks,
                        gpuKvBlocks * blockTokens);
                TraceRequestLine line = traceLine(config.workload(), request.requestId());
                if (line != null) {
                    throw new TraceFormatException(line.file(), line.lineNumber(), problem);
                }
                throw new CommandException("workload: request " + request.requestId() + ": " + problem);
            }
        }
    }

    private record TraceRequestLine(Path file, long lineNumber) {}

    /** The file and line a trace workload's request came from (its id is its position in the file), or null. */
    private TraceRequestLine traceLine(WorkloadPlan workload, long requestId) {
        return switch (workload) {
            case WorkloadPlan.Mooncake plan -> new TraceRequestLine(plan.trace(),
                    traces.get(plan.trace()).requests().get((int) requestId).lineNumber());
            case WorkloadPlan.Trace plan -> {
                RequestTrace trace = otherTraces.get(plan.trace() + " " + plan.format() + " " + plan.synthesis());
                yield new TraceRequestLine(trace.file(), trace.requests().get((int) requestId).lineNumber());
            }
            default -> null;
        };
    }

    /**
     * A trace whose blocks the model's block size cannot be cut from fails naming the field; a
     * {@link TraceException} (a bad line) passes as it is.
     */
    private static List<RequestSpec> withTraceField(Supplier<List<RequestSpec>> requests) {
        try {
            return requests.get();
        } catch (TraceException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage().startsWith("blockTokens") ? "workload." + e.getMessage()
                    : e.getMessage(), e);
        }
    }
}
