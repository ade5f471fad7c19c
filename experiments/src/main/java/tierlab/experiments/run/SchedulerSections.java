package tierlab.experiments.run;

import static tierlab.experiments.run.Fields.or;
import static tierlab.experiments.run.Fields.withField;

import java.nio.file.Path;
import java.util.Map;
import tierlab.experiments.CommandException;
import tierlab.experiments.run.ExperimentFile.SchedulerSection;
import tierlab.model.serving.PrefetchStop;
import tierlab.model.serving.SaveTiming;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.WaitingOrder;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.L2WritePolicy;

/**
 * The {@code scheduler} section: the serving engine by its {@link ServingEngines} name and the step
 * loop's knobs, so a new engine is a file value and a results column without a change here.
 */
final class SchedulerSections {

    private static final SchedulerSection EMPTY = new SchedulerSection(null, null, null, null, null, null, null, null, null, null, null, null);

    private SchedulerSections() {
    }

    /**
     * Refuses an engine the registry does not know, with the line where the text names it (a sweep
     * point is named by its axis values instead) and every known name.
     */
    static void checkEngine(Path file, String text, String where, ExperimentFile spec) {
        if (spec == null || spec.scheduler() == null || spec.scheduler().engine() == null) {
            return;
        }
        String engine = spec.scheduler().engine();
        if (ServingEngines.names().contains(engine)) {
            return;
        }
        StringBuilder message = new StringBuilder(file.toString());
        int line = ExperimentParsing.keyLine(text, "engine", -1);
        if (where != null) {
            message.append(": ").append(where);
        } else if (line > 0) {
            message.append(": line ").append(line);
        }
        throw new CommandException(message.append(": ").append(unknownEngine(engine)).toString());
    }

    /**
     * Resolves the section for a run with {@code defaultGpuKvBlocks} of GPU KV cache, adding its
     * columns to {@code parameters}; {@code noOffload} is the baseline that recomputes every prompt.
     */
    static SchedulerSettings resolve(SchedulerSection section, long defaultGpuKvBlocks, boolean noOffload,
                                     Map<String, Object> parameters) {
        SchedulerSection scheduler = section == null ? EMPTY : section;
        String engine = or(scheduler.engine(), SchedulerSettings.DEFAULT_ENGINE);
        // Checked by checkEngine with the file's line; this keeps a caller that skips it from running a typo.
        if (!ServingEngines.names().contains(engine)) {
            throw new IllegalArgumentException(unknownEngine(engine));
        }
        SchedulerSettings settings = withField("scheduler", () -> SchedulerSettings
                .builder(or(scheduler.gpuKvBlocks(), defaultGpuKvBlocks))
                .maxNumSeqs(or(scheduler.concurrency(), 16))
                .maxBatchedTokens(or(scheduler.maxBatchedTokens(), 8192L))
                .prefetchMaxRequests(or(scheduler.prefetchMaxRequests(), 2))
                .allL1Bypass(or(scheduler.allL1Bypass(), true))
                .engine(engine)
                .prefixCaching(or(scheduler.prefixCaching(), true))
                .prefetchStop(scheduler.prefetchStop() == null ? PrefetchStop.WAIT_COMPLETE : PrefetchStop.parse(scheduler.prefetchStop()))
                .loadLayerGroups(or(scheduler.loadLayerGroups(), 1))
                .hostWritePolicy(hostWritePolicy(scheduler.hostWritePolicy()))
                .waitingOrder(scheduler.waitingOrder() == null ? WaitingOrder.LPM : WaitingOrder.parse(scheduler.waitingOrder()))
                .saveTiming(scheduler.saveTiming() == null ? SaveTiming.AFTER_STEP : SaveTiming.parse(scheduler.saveTiming()))
                .build());
        if (noOffload) {
            settings = settings.withoutOffload();
        }
        parameters.put("scheduler.concurrency", settings.maxNumSeqs());
        parameters.put("scheduler.maxBatchedTokens", settings.maxBatchedTokens());
        parameters.put("scheduler.gpuKvBlocks", settings.gpuKvBlocks());
        parameters.put("scheduler.prefetchMaxRequests", settings.prefetchMaxRequests());
        parameters.put("scheduler.allL1Bypass", settings.allL1Bypass());
        parameters.put("scheduler.engine", settings.engine());
        parameters.put("scheduler.prefetchStop", settings.prefetchStop().settingText());
        parameters.put("scheduler.loadLayerGroups", settings.loadLayerGroups());
        // Only an engine with a GPU prefix cache has the knob: other engines' results keep their columns.
        if (ServingEngines.VLLM_V1.equals(engine)) {
            parameters.put("scheduler.prefixCaching", settings.prefixCaching());
        }
        // Only the vLLM engines have a save timing (vLLM's KV connector waits for its saves inside the step).
        if (ServingEngines.VLLM.equals(engine) || ServingEngines.VLLM_V1.equals(engine)) {
            parameters.put("scheduler.saveTiming", settings.saveTiming().settingName());
        }
        // Likewise only sglang has a GPU→store write policy and a waiting-queue order.
        if (ServingEngines.SGLANG.equals(engine)) {
            parameters.put("scheduler.hostWritePolicy", settings.hostWritePolicy().label());
            parameters.put("scheduler.waitingOrder", settings.waitingOrder().settingName());
        }
        return settings;
    }

    /** Reads the GPU→store write policy in {@link L2WritePolicy}'s forms, with a message naming this setting. */
    private static L2WritePolicy hostWritePolicy(String text) {
        if (text == null) {
            return L2WritePolicy.WRITE_THROUGH;
        }
        try {
            return L2WritePolicy.parse(text);
        } catch (IllegalArgumentException e) {
            // The policy's own message, whose setting is named here by its place in the experiment file.
            throw new IllegalArgumentException("scheduler.hostWritePolicy" + e.getMessage().substring("l2WritePolicy".length()), e);
        }
    }

    private static String unknownEngine(String engine) {
        return ServingEngines.REGISTRY.unknown("scheduler.engine", engine);
    }
}
