package tierlab.experiments.compute;

import java.util.Arrays;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.function.UnaryOperator;
import org.apache.commons.math3.exception.TooManyEvaluationsException;
import org.apache.commons.math3.exception.TooManyIterationsException;
import org.apache.commons.math3.fitting.leastsquares.LeastSquaresBuilder;
import org.apache.commons.math3.fitting.leastsquares.LeastSquaresOptimizer;
import org.apache.commons.math3.fitting.leastsquares.LeastSquaresProblem;
import org.apache.commons.math3.fitting.leastsquares.LevenbergMarquardtOptimizer;
import org.apache.commons.math3.fitting.leastsquares.MultivariateJacobianFunction;
import org.apache.commons.math3.linear.ArrayRealVector;
import org.apache.commons.math3.linear.RealMatrix;
import org.apache.commons.math3.linear.RealVector;
import org.apache.commons.math3.util.Pair;

/**
 * Levenberg–Marquardt (commons-math) on a compute fit's relative residuals: the model's
 * {@code predicted / measured} against a target of ones, every unknown held within its bounds at
 * every iteration. Shared by the compute kinds' fits; deterministic.
 */
final class RelativeLeastSquares {

    static final int MAX_EVALUATIONS = 20_000;
    static final String NOT_CONVERGED = "the fit did not converge within " + MAX_EVALUATIONS
            + " evaluations from any starting point; the values are the best found";

    /** A start's outcome: the unknowns, their squared relative error, whether the optimizer converged. */
    record Solution(double[] parameters, double cost, boolean converged) {}

    private RelativeLeastSquares() {
    }

    /**
     * Optimizes from {@code start}: {@code evaluate} gives the ratios and their Jacobian at a point,
     * {@code clamp} holds a point within bounds, {@code cost} is the squared relative error of a point.
     */
    static Solution solve(Function<double[], Pair<RealVector, RealMatrix>> evaluate, UnaryOperator<double[]> clamp,
                          ToDoubleFunction<double[]> cost, double[] start, int rows) {
        MultivariateJacobianFunction model = point -> evaluate.apply(clamp.apply(point.toArray()));
        double[] ones = new double[rows];
        Arrays.fill(ones, 1);
        LeastSquaresProblem problem = new LeastSquaresBuilder()
                .start(start)
                .model(model)
                .target(ones)
                .parameterValidator(point -> new ArrayRealVector(clamp.apply(point.toArray()), false))
                .maxEvaluations(MAX_EVALUATIONS)
                .maxIterations(MAX_EVALUATIONS)
                .build();
        try {
            LeastSquaresOptimizer.Optimum optimum = new LevenbergMarquardtOptimizer().optimize(problem);
            double[] p = clamp.apply(optimum.getPoint().toArray());
            return new Solution(p, cost.applyAsDouble(p), true);
        } catch (TooManyEvaluationsException | TooManyIterationsException e) {
            // No optimum: the start itself is the one point whose cost is known to be sound.
            double[] p = clamp.apply(start);
            return new Solution(p, cost.applyAsDouble(p), false);
        }
    }

    /** The best solution over the starting points: the converged one of least cost, else the least cost. */
    static final class Best {
        double[] parameters;
        double cost = Double.POSITIVE_INFINITY;
        boolean converged;

        void consider(Solution solution) {
            boolean better = solution.converged() && !converged || solution.converged() == converged && solution.cost() < cost;
            if (better) {
                parameters = solution.parameters();
                cost = solution.cost();
                converged = solution.converged();
            }
        }
    }

    /** The squared relative error of {@code predictedMs} against {@code measuredMs}. */
    static double squaredRelativeError(double[] predictedMs, double[] measuredMs) {
        double sum = 0;
        for (int i = 0; i < predictedMs.length; i++) {
            double r = predictedMs[i] / measuredMs[i] - 1;
            sum += r * r;
        }
        return sum;
    }

    /** Each row's error, {@code |predicted − measured| / measured}, in percent. */
    static double[] errorPercent(double[] predictedMs, double[] measuredMs) {
        double[] errors = new double[measuredMs.length];
        for (int i = 0; i < errors.length; i++) {
            errors[i] = 100 * Math.abs(predictedMs[i] - measuredMs[i]) / measuredMs[i];
        }
        return errors;
    }
}
