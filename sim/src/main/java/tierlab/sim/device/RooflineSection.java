package tierlab.sim.device;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import tierlab.model.geometry.ModelSection;
import tierlab.model.geometry.ModelShape;
import tierlab.model.io.ComputeModel;

/**
 * The {@code roofline} kind ({@link RooflineCompute}): a step's FLOPs and bytes from the model's shape
 * over the GPU's peak rates, scaled by fitted efficiencies, plus fitted fixed costs.
 *
 * <pre>
 * compute:
 *   kind: roofline
 *   gpu: {name: h200, peakBf16FlopsPerSecond: 9.89e14, hbmBytesPerSecond: 4.8e12, memoryBytes: 1.41e11}
 *   model: {preset: qwen3-8b}
 *   form: max
 *   computeEfficiency: 0.55
 *   memoryEfficiency: 0.8
 *   stepOverheadNs: 1500000
 *   sequenceNs: 20000
 * </pre>
 *
 * @param gpu               the GPU whose peak rates the efficiencies scale; absent: the GPU profile's
 *                          {@code name} looked up in {@link GpuSpecs}
 * @param model             the model the profile was fitted on; an experiment prices its own model instead
 * @param form              {@code max} [default] or {@code sum}
 * @param computeEfficiency achieved share of the peak FLOP rate, in (0, 1]
 * @param memoryEfficiency  achieved share of the peak HBM bandwidth, in (0, 1]
 * @param stepOverheadNs    fixed cost of every step (launches, scheduling, sampling) [0]
 * @param sequenceNs        cost of every sequence of the batch (its metadata, its sampling) [0]
 * @param fit               how {@code tierlab compute fit} obtained the values (informational)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RooflineSection(GpuSpec gpu, ModelSection model, String form, Double computeEfficiency,
                              Double memoryEfficiency, Double stepOverheadNs, Double sequenceNs, FitReport fit)
        implements ComputeSection {

    /**
     * What a fit recorded beside its values.
     *
     * @param table              the measured table it was fitted to
     * @param points             the table's rows
     * @param medianErrorPercent median of |predicted − measured| / measured over the rows, in percent
     * @param p90ErrorPercent    its 90th percentile
     * @param converged          whether the optimizer converged
     * @param warnings           every clamped or undetermined coefficient and a failure to converge, one line each
     */
    public record FitReport(String table, int points, double medianErrorPercent, double p90ErrorPercent,
                            boolean converged, List<String> warnings) {
        public FitReport {
            warnings = warnings == null ? List.of() : List.copyOf(warnings);
        }
    }

    public RooflineSection {
        form = form == null ? RooflineCompute.MAX : form;
        if (!RooflineCompute.MAX.equals(form) && !RooflineCompute.SUM.equals(form)) {
            throw new IllegalArgumentException("compute.form: must be max or sum, was " + form);
        }
        efficiency("compute.computeEfficiency", computeEfficiency);
        efficiency("compute.memoryEfficiency", memoryEfficiency);
        stepOverheadNs = stepOverheadNs == null ? 0.0 : stepOverheadNs;
        sequenceNs = sequenceNs == null ? 0.0 : sequenceNs;
        DeviceProfile.nonNegative("compute.stepOverheadNs", stepOverheadNs);
        DeviceProfile.nonNegative("compute.sequenceNs", sequenceNs);
    }

    static void efficiency(String field, Double value) {
        if (value == null) {
            throw new IllegalArgumentException(field + ": missing (the achieved share of the GPU's peak rate, in (0, 1])");
        }
        if (!(value > 0 && value <= 1)) {
            throw new IllegalArgumentException(field + " must be in (0, 1], was " + value);
        }
    }

    /** The GPU the rates are of: the section's, else the profile's GPU by name. */
    public GpuSpec gpuOf(GpuProfile profile) {
        if (gpu != null) {
            return gpu;
        }
        return GpuSpecs.get("gpu.name", profile == null ? null : profile.name());
    }

    @Override
    public ComputeModel open(GpuProfile profile) {
        if (model == null) {
            throw new IllegalArgumentException("compute.model: the roofline kind prices a model shape, and none is set");
        }
        return new RooflineCompute(gpuOf(profile), model.resolve("compute.model"), form, computeEfficiency,
                memoryEfficiency, stepOverheadNs, sequenceNs);
    }

    @Override
    public ComputeSection forModel(ModelShape shape) {
        return new RooflineSection(gpu, ModelSection.of(shape), form, computeEfficiency, memoryEfficiency, stepOverheadNs,
                sequenceNs, fit);
    }
}
