package tierlab.sim.device;

import com.fasterxml.jackson.annotation.JsonInclude;
import tierlab.model.geometry.ModelSection;
import tierlab.model.geometry.ModelShape;
import tierlab.model.io.ComputeModel;

/**
 * The {@code kernel-roofline} kind ({@link KernelRooflineCompute}): a roofline per kernel of the step
 * (each GEMM, attention, the element-wise kernels), summed, over the GPU's peak rates, with a fitted
 * efficiency per kind of kernel and fitted fixed costs.
 *
 * <pre>
 * compute:
 *   kind: kernel-roofline
 *   gpu: {name: h200, peakBf16FlopsPerSecond: 9.89e14, hbmBytesPerSecond: 4.8e12, memoryBytes: 1.41e11}
 *   model: {preset: qwen3-8b}
 *   gemmEfficiency: 0.66
 *   attentionEfficiency: 0.46
 *   memoryEfficiency: 0.87
 *   layerNs: 48000
 *   sequenceNs: 3000
 * </pre>
 *
 * @param gpu                 the GPU whose peak rates the efficiencies scale; absent: the GPU profile's
 *                            {@code name} looked up in {@link GpuSpecs}
 * @param model               the model the profile was fitted on; an experiment prices its own model instead
 * @param gemmEfficiency      achieved share of the peak FLOP rate in the GEMMs, in (0, 1]
 * @param attentionEfficiency achieved share of the peak FLOP rate in attention, in (0, 1]
 * @param memoryEfficiency    achieved share of the peak HBM bandwidth by every kernel, in (0, 1]
 * @param layerNs             fixed cost of one layer's kernels (launches, ramp-up, tails) [0]
 * @param sequenceNs          cost of every sequence of the batch [0]
 * @param stepOverheadNs      fixed cost of every step outside the GPU's kernels (an engine's scheduling and
 *                            host work; a table of graph-replayed steps has none, so the fit leaves it) [0]
 * @param fit                 how {@code tierlab compute fit} obtained the values (informational)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KernelRooflineSection(GpuSpec gpu, ModelSection model, Double gemmEfficiency, Double attentionEfficiency,
                                    Double memoryEfficiency, Double layerNs, Double sequenceNs, Double stepOverheadNs,
                                    RooflineSection.FitReport fit) implements ComputeSection {

    public KernelRooflineSection {
        RooflineSection.efficiency("compute.gemmEfficiency", gemmEfficiency);
        RooflineSection.efficiency("compute.attentionEfficiency", attentionEfficiency);
        RooflineSection.efficiency("compute.memoryEfficiency", memoryEfficiency);
        layerNs = layerNs == null ? 0.0 : layerNs;
        sequenceNs = sequenceNs == null ? 0.0 : sequenceNs;
        stepOverheadNs = stepOverheadNs == null ? 0.0 : stepOverheadNs;
        DeviceProfile.nonNegative("compute.layerNs", layerNs);
        DeviceProfile.nonNegative("compute.sequenceNs", sequenceNs);
        DeviceProfile.nonNegative("compute.stepOverheadNs", stepOverheadNs);
    }

    /** The rates a step time is computed with. */
    public KernelRooflineCompute.Rates rates() {
        return new KernelRooflineCompute.Rates(gemmEfficiency, attentionEfficiency, memoryEfficiency, layerNs, sequenceNs,
                stepOverheadNs);
    }

    @Override
    public ComputeModel open(GpuProfile profile) {
        if (model == null) {
            throw new IllegalArgumentException("compute.model: the kernel-roofline kind prices a model shape, and none is set");
        }
        GpuSpec rates = gpu != null ? gpu : GpuSpecs.get("gpu.name", profile == null ? null : profile.name());
        return new KernelRooflineCompute(rates, model.resolve("compute.model"), rates());
    }

    @Override
    public ComputeSection forModel(ModelShape shape) {
        return new KernelRooflineSection(gpu, ModelSection.of(shape), gemmEfficiency, attentionEfficiency, memoryEfficiency,
                layerNs, sequenceNs, stepOverheadNs, fit);
    }
}
