package tierlab.model.geometry;

import tierlab.model.Registry;

/**
 * A model as a file writes it: {@code model: {preset: qwen3-8b}}, a preset with some fields
 * overridden ({@code {preset: llama-3.1-70b, tp: 4, kvDtype: fp8}}), or every field explicitly (then
 * {@code name} and the five KV fields are required). Every field is optional; {@link #resolve} applies
 * the preset and checks the result, naming the field.
 *
 * @param kvDtype     the KV cache's element type: {@code bf16}, {@code fp16}, {@code fp8} or {@code fp32}
 * @param weightDtype the weights' element type, the same names
 * @param parameters  weight parameters, for models the dense formula does not describe (mixture of experts)
 * @param activeParameters parameters each token passes through (an MoE's shared and routed experts)
 */
public record ModelSection(String preset, String name, Integer layers, Integer queryHeads, Integer kvHeads,
                           Integer headDim, Integer hiddenSize, Integer intermediateSize, Integer vocabSize,
                           String kvDtype, String weightDtype, Integer kvLatentDim, Integer kvRopeDim, Integer tp,
                           Long parameters, Long activeParameters) {

    /** Element types by name, their bytes per element. */
    public static final Registry<Integer> DTYPES = Registry.<Integer>of("dtype")
            .add("bf16", 2)
            .add("fp16", 2)
            .add("fp8", 1)
            .add("fp32", 4)
            .build();

    /** Checks what a field alone can get wrong, so a file's reader reports it at its line. */
    public ModelSection {
        if (kvDtype != null) {
            DTYPES.get("model.kvDtype", kvDtype);
        }
        if (weightDtype != null) {
            DTYPES.get("model.weightDtype", weightDtype);
        }
        positive("layers", layers);
        positive("queryHeads", queryHeads);
        positive("kvHeads", kvHeads);
        positive("headDim", headDim);
        positive("tp", tp);
        nonNegative("hiddenSize", hiddenSize);
        nonNegative("intermediateSize", intermediateSize);
        nonNegative("vocabSize", vocabSize);
        nonNegative("kvLatentDim", kvLatentDim);
        nonNegative("kvRopeDim", kvRopeDim);
        if (parameters != null && parameters < 0 || activeParameters != null && activeParameters < 0) {
            throw new IllegalArgumentException("model." + (parameters != null && parameters < 0 ? "parameters" : "activeParameters")
                    + " must be >= 0");
        }
    }

    private static void positive(String field, Integer value) {
        if (value != null && value <= 0) {
            throw new IllegalArgumentException("model." + field + " must be > 0, was " + value);
        }
    }

    private static void nonNegative(String field, Integer value) {
        if (value != null && value < 0) {
            throw new IllegalArgumentException("model." + field + " must be >= 0, was " + value);
        }
    }

    /** A section naming a preset and nothing else. */
    public static ModelSection ofPreset(String preset) {
        return new ModelSection(preset, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null);
    }

    /** The same section with another KV element type. */
    public ModelSection withKvDtype(String dtype) {
        return new ModelSection(preset, name, layers, queryHeads, kvHeads, headDim, hiddenSize, intermediateSize, vocabSize,
                dtype, weightDtype, kvLatentDim, kvRopeDim, tp, parameters, activeParameters);
    }

    /** Every field of {@code shape} written out, so the section reads back to an equal shape without a preset. */
    public static ModelSection of(ModelShape shape) {
        return new ModelSection(null, shape.name(), shape.layers(), shape.queryHeads(), shape.kvHeads(), shape.headDim(),
                shape.hiddenSize(), shape.intermediateSize(), shape.vocabSize(), dtypeName(shape.dtypeBytes()),
                dtypeName(shape.weightBytes()), shape.kvLatentDim(), shape.kvRopeDim(), shape.tp(),
                shape.parameterCount(), shape.activeParameterCount());
    }

    /**
     * The shape this section describes; {@code field} is the section's name in messages
     * ({@code model}). Fails with one line naming the field that is missing or wrong.
     */
    public ModelShape resolve(String field) {
        ModelShape base = preset == null ? null : ModelShape.PRESETS.get(field + ".preset", preset);
        String resolvedName = name != null ? name : base != null ? base.name() : null;
        if (resolvedName == null || resolvedName.isBlank()) {
            throw new IllegalArgumentException(field + ".name: a model without a preset needs a name");
        }
        int kvBytes = kvDtype != null ? DTYPES.get(field + ".kvDtype", kvDtype) : base != null ? base.dtypeBytes() : 2;
        int weightBytesPerParameter = weightDtype != null ? DTYPES.get(field + ".weightDtype", weightDtype)
                : base != null ? base.weightBytes() : 2;
        int resolvedLayers = required(field, "layers", layers, base == null ? null : base.layers());
        int resolvedKvHeads = required(field, "kvHeads", kvHeads, base == null ? null : base.kvHeads());
        int resolvedQueryHeads = or(queryHeads, base != null ? base.queryHeads() : resolvedKvHeads);
        int resolvedHeadDim = required(field, "headDim", headDim, base == null ? null : base.headDim());
        try {
            return new ModelShape(resolvedName, resolvedLayers, resolvedQueryHeads, resolvedKvHeads, resolvedHeadDim,
                    kvBytes, or(hiddenSize, base == null ? 0 : base.hiddenSize()),
                    or(intermediateSize, base == null ? 0 : base.intermediateSize()),
                    or(vocabSize, base == null ? 0 : base.vocabSize()), weightBytesPerParameter,
                    or(kvLatentDim, base == null ? 0 : base.kvLatentDim()), or(kvRopeDim, base == null ? 0 : base.kvRopeDim()),
                    or(tp, base == null ? 1 : base.tp()), or(parameters, base == null ? 0 : base.parameterCount()),
                    or(activeParameters, base == null ? 0 : base.activeParameterCount()));
        } catch (IllegalArgumentException e) {
            // The shape's own messages name "model.FIELD"; a section under another name says so.
            String message = e.getMessage();
            throw new IllegalArgumentException(message.startsWith("model.") ? field + message.substring("model".length())
                    : field + ": " + message, e);
        }
    }

    private static int required(String field, String name, Integer value, Integer fromPreset) {
        if (value != null) {
            return value;
        }
        if (fromPreset == null) {
            throw new IllegalArgumentException(field + "." + name + ": missing (a model without a preset sets it; presets: "
                    + ModelShape.PRESETS.known() + ")");
        }
        return fromPreset;
    }

    private static int or(Integer value, int fallback) {
        return value != null ? value : fallback;
    }

    private static long or(Long value, long fallback) {
        return value != null ? value : fallback;
    }

    /** The name of a width in bytes, for writing a shape out. */
    static String dtypeName(int bytes) {
        return switch (bytes) {
            case 1 -> "fp8";
            case 2 -> "bf16";
            case 4 -> "fp32";
            default -> throw new IllegalArgumentException("model: no element type is " + bytes + " bytes wide");
        };
    }
}
