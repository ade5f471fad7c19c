package tierlab.experiments.compute;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.ArrayRealVector;
import org.apache.commons.math3.linear.RealVector;
import org.apache.commons.math3.util.Pair;
import tierlab.model.geometry.ModelSection;
import tierlab.model.geometry.ModelShape;
import tierlab.sim.device.GpuSpec;
import tierlab.sim.device.RooflineCompute;
import tierlab.sim.device.RooflineSection;
import tierlab.sim.device.StepRows;

/**
 * Fits the roofline kind's two efficiencies and two costs to measured steps by Levenberg–Marquardt
 * least squares on relative errors ({@code predicted / measured − 1}, so a 5 ms decode counts as much
 * as a 500 ms prefill). The unknowns are the inverse efficiencies and the costs in milliseconds, in
 * which the sum form is linear; the max form is piecewise linear in them, so the fit starts from a
 * small grid of starting points and keeps the best. Each unknown is held within its bounds
 * (efficiencies in [0.001, 1], costs ≥ 0); one that ends on a bound is reported as clamped, one the
 * table cannot determine (no step bound by its term, in the max form) as undetermined, and a start
 * that does not converge within its evaluations as not converged. Deterministic: no randomness, the
 * starting points in a fixed order.
 */
public final class RooflineFit {

    /** The least efficiency the fit may return: a thousandth of the peak rate. */
    static final double MIN_EFFICIENCY = 1e-3;
    private static final double[] INVERSE_COMPUTE_STARTS = {1.25, 2, 5};
    private static final double[] INVERSE_MEMORY_STARTS = {1.1, 1.5, 3};
    private static final String[] NAMES = {"computeEfficiency", "memoryEfficiency", "stepOverheadNs", "sequenceNs"};

    /** The fit's values, each row's prediction, and what went wrong. */
    public record Result(RooflineSection section, double[] predictedMs, double[] errorPercent, double medianErrorPercent,
                         double p90ErrorPercent, boolean converged, List<String> warnings) {}

    private RooflineFit() {
    }

    /**
     * Fits {@code rows} (with their {@code ms}) of {@code shape} on {@code gpu}; {@code model} is the
     * section the profile records, {@code table} the table's name.
     */
    public static Result fit(List<StepRows.Row> rows, ModelShape shape, ModelSection model, GpuSpec gpu, String form,
                             String table) {
        if (rows.size() < NAMES.length) {
            throw new IllegalArgumentException(table + ": a roofline fit has " + NAMES.length + " unknowns and needs at least "
                    + NAMES.length + " steps, the table has " + rows.size());
        }
        Terms terms = Terms.of(rows, shape, gpu, form);
        double minMs = Arrays.stream(terms.measuredMs).min().orElseThrow();
        RelativeLeastSquares.Best best = new RelativeLeastSquares.Best();
        for (double u : INVERSE_COMPUTE_STARTS) {
            for (double v : INVERSE_MEMORY_STARTS) {
                best.consider(terms.solve(new double[] {u, v, minMs / 2, 0}));
            }
        }
        double[] p = best.parameters;
        List<String> warnings = new ArrayList<>(terms.boundWarnings(p));
        if (!best.converged) {
            warnings.add(RelativeLeastSquares.NOT_CONVERGED);
        }
        double[] predicted = terms.predict(p);
        double[] errors = RelativeLeastSquares.errorPercent(predicted, terms.measuredMs);
        double median = percentile(errors, 0.5);
        double p90 = percentile(errors, 0.9);
        RooflineSection section = new RooflineSection(gpu, model, form, 1 / p[0], 1 / p[1], p[2] * 1e6, p[3] * 1e6,
                new RooflineSection.FitReport(table, rows.size(), median, p90, best.converged, warnings));
        return new Result(section, predicted, errors, median, p90, best.converged, List.copyOf(warnings));
    }

    /** The {@code q} quantile of {@code values} (linear between order statistics; 0.5 is the median). */
    static double percentile(double[] values, double q) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        double at = q * (sorted.length - 1);
        int low = (int) Math.floor(at);
        int high = Math.min(sorted.length - 1, low + 1);
        return sorted[low] + (at - low) * (sorted[high] - sorted[low]);
    }

    /**
     * Each row's compute and memory time at full efficiency (ms), its sequence count and measured ms:
     * {@code predicted = o + s × batch + combine(u × computeMs, v × memoryMs)}.
     */
    private record Terms(double[] computeMs, double[] memoryMs, double[] batch, double[] measuredMs, boolean sumForm) {

        static Terms of(List<StepRows.Row> rows, ModelShape shape, GpuSpec gpu, String form) {
            RooflineCompute unit = new RooflineCompute(gpu, shape, form, 1, 1, 0, 0);
            int n = rows.size();
            Terms terms = new Terms(new double[n], new double[n], new double[n], new double[n], RooflineCompute.SUM.equals(form));
            for (int i = 0; i < n; i++) {
                StepRows.Row row = rows.get(i);
                RooflineCompute.StepCost cost = unit.cost(row.batch(), row.newTokens(), row.contextTokens());
                terms.computeMs[i] = cost.flops() / gpu.peakBf16FlopsPerSecond() * 1e3;
                terms.memoryMs[i] = cost.bytes() / gpu.hbmBytesPerSecond() * 1e3;
                terms.batch[i] = row.batch();
                terms.measuredMs[i] = row.ms();
            }
            return terms;
        }

        double[] predict(double[] p) {
            double[] out = new double[measuredMs.length];
            for (int i = 0; i < out.length; i++) {
                double c = p[0] * computeMs[i];
                double m = p[1] * memoryMs[i];
                out[i] = p[2] + p[3] * batch[i] + (sumForm ? c + m : Math.max(c, m));
            }
            return out;
        }

        /** Relative residuals and their Jacobian at {@code p}. */
        Pair<RealVector, org.apache.commons.math3.linear.RealMatrix> evaluate(double[] p) {
            int n = measuredMs.length;
            double[] value = new double[n];
            double[][] jacobian = new double[n][4];
            double[] predicted = predict(p);
            for (int i = 0; i < n; i++) {
                double c = p[0] * computeMs[i];
                double m = p[1] * memoryMs[i];
                value[i] = predicted[i] / measuredMs[i];
                jacobian[i][0] = (sumForm || c >= m ? computeMs[i] : 0) / measuredMs[i];
                jacobian[i][1] = (sumForm || m > c ? memoryMs[i] : 0) / measuredMs[i];
                jacobian[i][2] = 1 / measuredMs[i];
                jacobian[i][3] = batch[i] / measuredMs[i];
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
            return new double[] {Math.clamp(p[0], 1, 1 / MIN_EFFICIENCY), Math.clamp(p[1], 1, 1 / MIN_EFFICIENCY),
                Math.max(0, p[2]), Math.max(0, p[3])};
        }

        /** A line for every unknown on a bound, and, in the max form, for an efficiency no step's time depends on. */
        List<String> boundWarnings(double[] p) {
            List<String> warnings = new ArrayList<>();
            double[] lower = {1, 1, 0, 0};
            for (int k = 0; k < 4; k++) {
                if (p[k] == lower[k]) {
                    warnings.add(NAMES[k] + " clamped at " + (k < 2 ? "1 (the peak rate)" : "0")
                            + (k < 2 ? ": the table's steps are faster than the peak rate allows" : ": the fit wanted it negative"));
                } else if (k < 2 && p[k] == 1 / MIN_EFFICIENCY) {
                    warnings.add(NAMES[k] + " clamped at " + MIN_EFFICIENCY + " of the peak rate");
                }
            }
            if (!sumForm) {
                boolean computeBinds = false;
                boolean memoryBinds = false;
                for (int i = 0; i < measuredMs.length; i++) {
                    computeBinds |= p[0] * computeMs[i] >= p[1] * memoryMs[i];
                    memoryBinds |= p[1] * memoryMs[i] > p[0] * computeMs[i];
                }
                if (!computeBinds) {
                    warnings.add("computeEfficiency is undetermined: no step of the table is compute-bound at the fitted values");
                }
                if (!memoryBinds) {
                    warnings.add("memoryEfficiency is undetermined: no step of the table is memory-bound at the fitted values");
                }
            }
            return warnings;
        }
    }

    /** {@code value} with four significant digits, for the command's lines. */
    static String four(double value) {
        return String.format(Locale.ROOT, "%.4g", value);
    }
}
