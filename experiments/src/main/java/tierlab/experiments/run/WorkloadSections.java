package tierlab.experiments.run;

import static tierlab.experiments.run.Fields.nonNegative;
import static tierlab.experiments.run.Fields.or;
import static tierlab.experiments.run.Fields.withField;

import java.nio.file.Path;
import java.util.Map;
import tierlab.experiments.run.ExperimentFile.WorkloadSection;
import tierlab.model.Registry;
import tierlab.model.geometry.Geometry;
import tierlab.model.geometry.ModelSection;
import tierlab.model.geometry.ModelShape;
import tierlab.workload.AzureSynthesis;
import tierlab.workload.LengthDistribution;
import tierlab.workload.LongPrefillPasses;
import tierlab.workload.LongPrefillSettings;
import tierlab.workload.MooncakeWorkload;
import tierlab.workload.QwenTraceReader;
import tierlab.workload.TraceFiles;
import tierlab.workload.TraceWorkload;

/**
 * The {@code workload} section: its type, model shape and presets come from registries (whose
 * errors list the known names), and each type resolves its own fields into a {@link WorkloadPlan}.
 */
final class WorkloadSections {

    /** Resolves one workload type's fields; adds the type's own parameter columns. */
    @FunctionalInterface
    interface WorkloadType {
        WorkloadPlan resolve(WorkloadSection workload, Path folder, Map<String, Object> parameters, ModelShape shape, int tp);
    }

    static final Registry<WorkloadType> TYPES = Registry.<WorkloadType>of("type")
            .add("long-prefill", WorkloadSections::longPrefill)
            .add("mooncake", WorkloadSections::mooncake)
            .add("synthetic", WorkloadSections::synthetic)
            .add("qwen", (workload, folder, parameters, shape, tp) -> trace("qwen", workload, folder, parameters, shape, tp))
            .add("azure", (workload, folder, parameters, shape, tp) -> trace("azure", workload, folder, parameters, shape, tp))
            .build();

    /** A long-prefill preset: the reference experiment's prompt count, lengths and block size, which the file's fields override. */
    record LongPrefillPreset(int prompts, long promptTokens, long promptSpreadTokens, int blockTokens) {
        /** No preset: the file must give the prompts and their length. */
        static final LongPrefillPreset NONE = new LongPrefillPreset(0, 0, 0, LongPrefillPasses.REFERENCE_BLOCK_TOKENS);
    }

    static final Registry<LongPrefillPreset> PRESETS = Registry.<LongPrefillPreset>of("preset")
            .add("e1", new LongPrefillPreset(LongPrefillPasses.E1_PROMPTS, LongPrefillPasses.E1_MEAN_PROMPT_TOKENS,
                    LongPrefillPasses.E1_PROMPT_SPREAD_TOKENS, LongPrefillPasses.REFERENCE_BLOCK_TOKENS))
            .add("e2", new LongPrefillPreset(LongPrefillPasses.E2_PROMPTS, LongPrefillPasses.E2_PROMPT_TOKENS, 0,
                    LongPrefillPasses.E2_BLOCK_TOKENS))
            .add("e3", new LongPrefillPreset(LongPrefillPasses.E3_PROMPTS, LongPrefillPasses.E3_PROMPT_TOKENS, 0,
                    LongPrefillPasses.REFERENCE_BLOCK_TOKENS))
            .build();

    private WorkloadSections() {
    }

    static WorkloadPlan resolve(WorkloadSection workload, ModelSection model, Path folder, Map<String, Object> parameters) {
        if (workload == null) {
            throw new IllegalArgumentException("workload: a simulation needs a workload section");
        }
        String type = workload.type();
        if (type == null) {
            TYPES.get("workload.type", null);
        }
        ModelShape shape = shape(workload, model);
        parameters.put("workload.type", type);
        parameters.put("workload.model", shape.name());
        int tp = tp(workload, model);
        parameters.put("workload.tp", tp);
        return TYPES.get("workload.type", type).resolve(workload, folder, parameters, shape.withTp(tp), tp);
    }

    /** The model: the file's {@code model} section, or the preset {@code workload.model} names [qwen3-8b]. */
    private static ModelShape shape(WorkloadSection workload, ModelSection model) {
        if (model == null) {
            return ModelShape.PRESETS.get("workload.model", or(workload.model(), ModelShape.QWEN3_8B.name()));
        }
        if (workload.model() != null) {
            throw new IllegalArgumentException("model: the model is named twice, by workload.model and by the model section"
                    + " (keep one)");
        }
        return model.resolve("model");
    }

    /** The tensor-parallel degree: {@code model.tp} or {@code workload.tp} [1]; both must agree. */
    private static int tp(WorkloadSection workload, ModelSection model) {
        Integer fromModel = model == null ? null : model.tp();
        if (fromModel != null && workload.tp() != null && !fromModel.equals(workload.tp())) {
            throw new IllegalArgumentException("model.tp: " + fromModel + " disagrees with workload.tp: " + workload.tp()
                    + " (keep one)");
        }
        return fromModel != null ? fromModel : or(workload.tp(), 1);
    }

    private static WorkloadPlan longPrefill(WorkloadSection workload, Path folder, Map<String, Object> parameters,
                                            ModelShape shape, int tp) {
        String preset = workload.preset();
        LongPrefillPreset base = preset == null || preset.isEmpty() ? LongPrefillPreset.NONE
                : PRESETS.get("workload.preset", preset);
        int prompts = or(workload.prompts(), base.prompts());
        long tokens = or(workload.promptTokens(), base.promptTokens());
        long spread = or(workload.promptSpreadTokens(), base.promptSpreadTokens());
        int blockTokens = or(workload.blockTokens(), base.blockTokens());
        if (prompts <= 0) {
            throw new IllegalArgumentException("workload.prompts: must be > 0" + (preset == null
                    ? " (or name a preset: " + PRESETS.known() + ")" : "") + ", was " + prompts);
        }
        if (tokens <= 0) {
            throw new IllegalArgumentException("workload.promptTokens: must be > 0, was " + tokens);
        }
        if (spread < 0 || spread >= tokens) {
            throw new IllegalArgumentException("workload.promptSpreadTokens: must be in [0, promptTokens), was " + spread);
        }
        long output = or(workload.outputTokens(), 1L);
        double spacingMs = nonNegative("workload.arrivalSpacingMs", or(workload.arrivalSpacingMs(), 0.0));
        double gapMs = nonNegative("workload.warmGapMs", or(workload.warmGapMs(), 1000.0));
        Geometry geometry = geometry(shape, blockTokens, tp);
        LongPrefillSettings settings = withField("workload", () -> new LongPrefillSettings(
                preset == null ? "long-prefill" : preset, prompts,
                spread == 0 ? LengthDistribution.fixed(tokens)
                        : LengthDistribution.uniform(tokens - spread, tokens + spread),
                spread > 0, output, Math.round(spacingMs * 1e6)));
        boolean warm = or(workload.warmPass(), true);
        int clients = or(workload.clientConcurrency(), 0);
        if (clients < 0) {
            throw new IllegalArgumentException("workload.clientConcurrency: must be >= 0 (0 = all at once), was " + clients);
        }
        parameters.put("workload.clientConcurrency", clients);
        parameters.put("workload.preset", preset == null ? "" : preset);
        parameters.put("workload.prompts", prompts);
        parameters.put("workload.promptTokens", tokens);
        parameters.put("workload.blockTokens", blockTokens);
        return new WorkloadPlan.LongPrefill(settings, geometry, warm, Math.round(gapMs * 1e6), clients);
    }

    /** The trace {@code name} names, relative to the experiment's folder, refused in words when it is not a file. */
    private static Path traceFile(Path folder, String name) {
        Path trace = folder.resolve(name).normalize();
        String problem = TraceFiles.problem(trace);
        if (problem != null) {
            throw new IllegalArgumentException("workload.trace: " + trace + ": " + problem
                    + " (paths are relative to the experiment file's folder)");
        }
        return trace;
    }

    private static WorkloadPlan mooncake(WorkloadSection workload, Path folder, Map<String, Object> parameters,
                                         ModelShape shape, int tp) {
        if (workload.trace() == null) {
            throw new IllegalArgumentException("workload.trace: a mooncake workload names its JSONL trace file");
        }
        Path trace = traceFile(folder, workload.trace());
        int blockTokens = or(workload.blockTokens(), LongPrefillPasses.REFERENCE_BLOCK_TOKENS);
        Geometry geometry = geometry(shape, blockTokens, tp);
        withField("workload.blockTokens", () -> {
            MooncakeWorkload.checkBlockTokens(blockTokens);
            return null;
        });
        MooncakeWorkload.Options options = withField("workload", () -> new MooncakeWorkload.Options(
                or(workload.requestLimit(), 0L), or(workload.timeScale(), 1.0)));
        parameters.put("workload.trace", workload.trace());
        parameters.put("workload.requestLimit", options.requestLimit());
        parameters.put("workload.timeScale", options.timeScale());
        parameters.put("workload.blockTokens", blockTokens);
        return new WorkloadPlan.Mooncake(trace, options, geometry);
    }

    /**
     * A qwen or azure trace: the same fields as mooncake (trace, requestLimit, timeScale, blockTokens),
     * plus azure's synthesis settings. The trace is read when the run starts; its block size is
     * checked against blockTokens then, naming the field.
     */
    private static WorkloadPlan trace(String format, WorkloadSection workload, Path folder, Map<String, Object> parameters,
                                      ModelShape shape, int tp) {
        if (workload.trace() == null) {
            throw new IllegalArgumentException("workload.trace: " + TraceWorkload.withArticle(format) + " workload names its trace file");
        }
        Path trace = traceFile(folder, workload.trace());
        if (workload.azure() != null && !format.equals("azure")) {
            throw new IllegalArgumentException("workload.azure: only an azure workload has synthesis settings");
        }
        int blockTokens = or(workload.blockTokens(), LongPrefillPasses.REFERENCE_BLOCK_TOKENS);
        Geometry geometry = geometry(shape, blockTokens, tp);
        MooncakeWorkload.Options options = withField("workload", () -> new MooncakeWorkload.Options(
                or(workload.requestLimit(), 0L), or(workload.timeScale(), 1.0)));
        AzureSynthesis synthesis = null;
        if (format.equals("azure")) {
            ExperimentFile.AzureSection azure = workload.azure() == null
                    ? new ExperimentFile.AzureSection(null, null, null, null, null, null, null) : workload.azure();
            AzureSynthesis d = AzureSynthesis.DEFAULT;
            synthesis = withField("workload.azure", () -> new AzureSynthesis(or(azure.seed(), d.seed()),
                    or(azure.blockTokens(), d.blockTokens()), or(azure.prefixGroups(), d.prefixGroups()),
                    or(azure.zipfExponent(), d.zipfExponent()), or(azure.maxSharedPrefixTokens(), d.maxSharedPrefixTokens()),
                    or(azure.followUpProbability(), d.followUpProbability()), or(azure.followUpWindow(), d.followUpWindow())));
            parameters.put("workload.azure", synthesis.toString());
        }
        // The trace's block size is known without reading it: refuse a model block size it cannot be cut to now.
        int traceBlockTokens = synthesis != null ? synthesis.blockTokens() : QwenTraceReader.TRACE_BLOCK_TOKENS;
        if (traceBlockTokens % blockTokens != 0 && blockTokens % traceBlockTokens != 0) {
            throw new IllegalArgumentException("workload.blockTokens: " + TraceWorkload.withArticle(format) + " trace (" + traceBlockTokens
                    + "-token blocks) can only be re-blocked to a block size that divides " + traceBlockTokens
                    + " or is a multiple of it, but blockTokens is " + blockTokens);
        }
        parameters.put("workload.trace", workload.trace());
        parameters.put("workload.requestLimit", options.requestLimit());
        parameters.put("workload.timeScale", options.timeScale());
        parameters.put("workload.blockTokens", blockTokens);
        return new WorkloadPlan.Trace(trace, format, synthesis, options, geometry);
    }

    private static WorkloadPlan synthetic(WorkloadSection workload, Path folder, Map<String, Object> parameters,
                                          ModelShape shape, int tp) {
        if (workload.synthetic() == null) {
            throw new IllegalArgumentException("workload.synthetic: a synthetic workload needs its settings"
                    + " (requestCount, arrivals, promptTokens, outputTokens, ...)");
        }
        int blockTokens = or(workload.blockTokens(), LongPrefillPasses.REFERENCE_BLOCK_TOKENS);
        parameters.put("workload.blockTokens", blockTokens);
        parameters.put("workload.requests", workload.synthetic().requestCount());
        return new WorkloadPlan.Synthetic(workload.synthetic(), geometry(shape, blockTokens, tp));
    }

    private static Geometry geometry(ModelShape shape, int blockTokens, int tp) {
        return withField("workload", () -> new Geometry(shape, blockTokens, tp));
    }
}
