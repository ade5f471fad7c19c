package tierlab.experiments.compute;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.ArrayRealVector;
import org.apache.commons.math3.linear.RealMatrix;
import org.apache.commons.math3.linear.RealVector;
import org.apache.commons.math3.util.Pair;
import tierlab.model.geometry.ModelSection;
import tierlab.model.geometry.ModelShape;
import tierlab.sim.device.GpuSpec;
import tierlab.sim.device.KernelRooflineCompute;
import tierlab.sim.device.KernelRooflineCompute.Kernel;
import tierlab.sim.device.KernelRooflineSection;
import tierlab.sim.device.RooflineSection;
import tierlab.sim.device.StepRows;

/**
 * Fits the kernel-roofline kind's three efficiencies and two costs ({@code gemmEfficiency},
 * {@code attentionEfficiency}, {@code memoryEfficiency}, {@code layerNs}, {@code sequenceNs}) to measured
 * steps, by the same relative least squares as {@link RooflineFit}: the unknowns are the inverse
 * efficiencies and the costs in milliseconds, in which each kernel's time is piecewise linear, from
 * a fixed grid of starting points, the best kept. {@code stepOverheadNs} is not fitted (0): a per-step
 * cost and {@code layerNs × layers} cannot be told apart in one model's steps, and the kernels of a
 * graph-replayed step have no host work beside them.
 */
public final class KernelRooflineFit {

    private static final double[] INVERSE_GEMM_STARTS = {1.25, 2, 5};
    private static final double[] INVERSE_MEMORY_STARTS = {1.1, 1.5, 3};
    private static final String[] NAMES = {"gemmEfficiency", "attentionEfficiency", "memoryEfficiency", "layerNs",
        "sequenceNs"};
    private static final int UNKNOWNS = NAMES.length;

    /** The fit's values, each row's prediction, and what went wrong. */
    public record Result(KernelRooflineSection section, double[] predictedMs, double[] errorPercent,
                         double medianErrorPercent, double p90ErrorPercent, boolean converged, List<String> warnings) {}

    private KernelRooflineFit() {
    }

    /** Fits {@code rows} (with their {@code ms}) of {@code shape} on {@code gpu}; {@code table} is the table's name. */
    public static Result fit(List<StepRows.Row> rows, ModelShape shape, ModelSection model, GpuSpec gpu, String table) {
        if (rows.size() < UNKNOWNS) {
            throw new IllegalArgumentException(table + ": a kernel-roofline fit has " + UNKNOWNS
                    + " unknowns and needs at least " + UNKNOWNS + " steps, the table has " + rows.size());
        }
        Terms terms = Terms.of(rows, shape, gpu);
        double minMs = Arrays.stream(terms.measuredMs).min().orElseThrow();
        RelativeLeastSquares.Best best = new RelativeLeastSquares.Best();
        for (double u : INVERSE_GEMM_STARTS) {
            for (double v : INVERSE_MEMORY_STARTS) {
                best.consider(terms.solve(new double[] {u, u, v, minMs / 2 / terms.layers, 0}));
            }
        }
        double[] p = best.parameters;
        List<String> warnings = new ArrayList<>(terms.boundWarnings(p));
        if (!best.converged) {
            warnings.add(RelativeLeastSquares.NOT_CONVERGED);
        }
        double[] predicted = terms.predict(p);
        double[] errors = RelativeLeastSquares.errorPercent(predicted, terms.measuredMs);
        double median = RooflineFit.percentile(errors, 0.5);
        double p90 = RooflineFit.percentile(errors, 0.9);
        KernelRooflineSection section = new KernelRooflineSection(gpu, model, 1 / p[0], 1 / p[1], 1 / p[2], p[3] * 1e6,
                p[4] * 1e6, 0.0, new RooflineSection.FitReport(table, rows.size(), median, p90, best.converged, warnings));
        return new Result(section, predicted, errors, median, p90, best.converged, List.copyOf(warnings));
    }

    /**
     * Each row's per-kernel compute and memory times at full efficiency (ms), its sequences and measured ms:
     * {@code predicted = Σ max(u_k × compute_k, v × memory_k) + layerMs × layers + sequenceMs × batch},
     * {@code u_k} the GEMMs' or attention's inverse efficiency.
     */
    private record Terms(double[][] computeMs, double[][] memoryMs, double[] batch, double[] measuredMs, int layers) {

        static Terms of(List<StepRows.Row> rows, ModelShape shape, GpuSpec gpu) {
            KernelRooflineCompute unit = new KernelRooflineCompute(gpu, shape,
                    new KernelRooflineCompute.Rates(1, 1, 1, 0, 0, 0));
            int n = rows.size();
            int kernels = Kernel.values().length;
            Terms terms = new Terms(new double[n][kernels], new double[n][kernels], new double[n], new double[n],
                    unit.layers());
            for (int i = 0; i < n; i++) {
                StepRows.Row row = rows.get(i);
                KernelRooflineCompute.StepCost cost = unit.cost(row.batch(), row.newTokens(), row.contextTokens());
                for (Kernel kernel : Kernel.values()) {
                    terms.computeMs[i][kernel.ordinal()] = cost.flops(kernel) / gpu.peakBf16FlopsPerSecond() * 1e3;
                    terms.memoryMs[i][kernel.ordinal()] = cost.bytes(kernel) / gpu.hbmBytesPerSecond() * 1e3;
                }
                terms.batch[i] = row.batch();
                terms.measuredMs[i] = row.ms();
            }
            return terms;
        }

        private static double inverseComputeOf(Kernel kernel, double[] p) {
            return kernel.gemm() ? p[0] : p[1];
        }

        private boolean computeBound(int row, Kernel kernel, double[] p) {
            int k = kernel.ordinal();
            return inverseComputeOf(kernel, p) * computeMs[row][k] >= p[2] * memoryMs[row][k];
        }

        double[] predict(double[] p) {
            double[] out = new double[measuredMs.length];
            for (int i = 0; i < out.length; i++) {
                double ms = p[3] * layers + p[4] * batch[i];
                for (Kernel kernel : Kernel.values()) {
                    int k = kernel.ordinal();
                    ms += Math.max(inverseComputeOf(kernel, p) * computeMs[i][k], p[2] * memoryMs[i][k]);
                }
                out[i] = ms;
            }
            return out;
        }

        /** Relative residuals and their Jacobian at {@code p}. */
        Pair<RealVector, RealMatrix> evaluate(double[] p) {
            int n = measuredMs.length;
            double[] value = new double[n];
            double[][] jacobian = new double[n][UNKNOWNS];
            double[] predicted = predict(p);
            for (int i = 0; i < n; i++) {
                value[i] = predicted[i] / measuredMs[i];
                for (Kernel kernel : Kernel.values()) {
                    int k = kernel.ordinal();
                    if (computeBound(i, kernel, p) && computeMs[i][k] > 0) {
                        jacobian[i][kernel.gemm() ? 0 : 1] += computeMs[i][k] / measuredMs[i];
                    } else {
                        jacobian[i][2] += memoryMs[i][k] / measuredMs[i];
                    }
                }
                jacobian[i][3] = layers / measuredMs[i];
                jacobian[i][4] = batch[i] / measuredMs[i];
            }
            return new Pair<>(new ArrayRealVector(value, false), new Array2DRowRealMatrix(jacobian, false));
        }

        RelativeLeastSquares.Solution solve(double[] start) {
            return RelativeLeastSquares.solve(this::evaluate, Terms::clamp, this::cost, start, measuredMs.length);
        }

        double cost(double[] p) {
            return RelativeLeastSquares.squaredRelativeError(predict(p), measuredMs);
        }

        static double[] clamp(double[] p) {
            double most = 1 / RooflineFit.MIN_EFFICIENCY;
            return new double[] {Math.clamp(p[0], 1, most), Math.clamp(p[1], 1, most), Math.clamp(p[2], 1, most),
                Math.max(0, p[3]), Math.max(0, p[4])};
        }

        /** A line for every unknown on a bound, and for an efficiency no kernel of any step is bound by. */
        List<String> boundWarnings(double[] p) {
            List<String> warnings = new ArrayList<>();
            for (int k = 0; k < UNKNOWNS; k++) {
                boolean efficiency = k < 3;
                if (p[k] == (efficiency ? 1 : 0)) {
                    warnings.add(NAMES[k] + " clamped at " + (efficiency
                            ? "1 (the peak rate): the table's steps are faster than the peak rate allows"
                            : "0: the fit wanted it negative"));
                } else if (efficiency && p[k] == 1 / RooflineFit.MIN_EFFICIENCY) {
                    warnings.add(NAMES[k] + " clamped at " + RooflineFit.MIN_EFFICIENCY + " of the peak rate");
                }
            }
            boolean[] binds = new boolean[3];
            for (int i = 0; i < measuredMs.length; i++) {
                for (Kernel kernel : Kernel.values()) {
                    boolean compute = computeBound(i, kernel, p) && computeMs[i][kernel.ordinal()] > 0;
                    binds[compute ? (kernel.gemm() ? 0 : 1) : 2] |= true;
                }
            }
            for (int k = 0; k < 3; k++) {
                if (!binds[k]) {
                    warnings.add(NAMES[k] + " is undetermined: no kernel of any step of the table is bound by it at the"
                            + " fitted values");
                }
            }
            return warnings;
        }
    }
}
