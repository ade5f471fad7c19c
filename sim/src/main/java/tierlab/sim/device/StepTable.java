package tierlab.sim.device;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import tierlab.model.io.ComputeModel;
import tierlab.model.io.IoOp;
import tierlab.model.io.StepShape;

/**
 * The {@code table} kind's step time: interpolation over a measured table of uniform steps. Per kind
 * (prefill, decode) the rows must cover a full grid of their distinct batch, new-token and
 * context-token values; a step is looked up at its sequence count and its mean new and context tokens
 * per sequence, trilinearly between grid points and linearly beyond the outermost two along each axis
 * (an axis with one value is constant), never below zero. A step all of whose sequences decode is a
 * decode step; any other is a prefill step.
 */
public final class StepTable implements ComputeModel {

    private final Grid prefill;
    private final Grid decode;

    public StepTable(String origin, List<StepRows.Row> rows) {
        this.prefill = Grid.of(origin, StepRows.PREFILL, rows);
        this.decode = Grid.of(origin, StepRows.DECODE, rows);
    }

    @Override
    public long stepNs(StepShape shape) {
        double newSum = 0;
        double contextSum = 0;
        boolean allDecode = true;
        List<StepShape.Sequence> sequences = shape.sequences();
        for (int i = 0; i < sequences.size(); i++) {
            newSum += sequences.get(i).newTokens();
            contextSum += sequences.get(i).contextTokens();
            allDecode &= sequences.get(i).decode();
        }
        return stepNs(allDecode, sequences.size(), newSum, contextSum);
    }

    @Override
    public long stepNs(IoOp.Compute step) {
        double newSum = 0;
        double contextSum = 0;
        boolean allDecode = true;
        List<IoOp.ComputeItem> items = step.items();
        for (int i = 0; i < items.size(); i++) {
            newSum += items.get(i).newTokens();
            contextSum += items.get(i).contextTokens();
            allDecode &= StepShape.decodes(items.get(i));
        }
        return stepNs(allDecode, items.size(), newSum, contextSum);
    }

    private long stepNs(boolean allDecode, int batch, double newSum, double contextSum) {
        if (batch == 0) {
            return 0;
        }
        double ms = (allDecode ? decode : prefill).at(batch, newSum / batch, contextSum / batch);
        return (long) Math.ceil(Math.max(0, ms) * 1e6);
    }

    /** One kind's rows as a full grid, {@code ms[b][n][c]}. */
    private record Grid(double[] batches, double[] newTokens, double[] contexts, double[][][] ms) {

        static Grid of(String origin, String kind, List<StepRows.Row> rows) {
            List<StepRows.Row> mine = new ArrayList<>();
            TreeSet<Double> b = new TreeSet<>();
            TreeSet<Double> n = new TreeSet<>();
            TreeSet<Double> c = new TreeSet<>();
            for (StepRows.Row row : rows) {
                if (row.kind().equals(kind)) {
                    mine.add(row);
                    b.add((double) row.batch());
                    n.add((double) row.newTokens());
                    c.add((double) row.contextTokens());
                }
            }
            if (mine.isEmpty()) {
                throw new IllegalArgumentException(origin + ": the table kind needs " + kind + " rows, and the table has none");
            }
            Grid grid = new Grid(values(b), values(n), values(c),
                    new double[b.size()][n.size()][c.size()]);
            for (double[][] plane : grid.ms) {
                for (double[] line : plane) {
                    Arrays.fill(line, Double.NaN);
                }
            }
            for (StepRows.Row row : mine) {
                int bi = Arrays.binarySearch(grid.batches, row.batch());
                int ni = Arrays.binarySearch(grid.newTokens, row.newTokens());
                int ci = Arrays.binarySearch(grid.contexts, row.contextTokens());
                if (!Double.isNaN(grid.ms[bi][ni][ci])) {
                    throw new IllegalArgumentException(origin + ": " + kind + " step batch " + row.batch() + ", new_tokens "
                            + row.newTokens() + ", context_tokens " + row.contextTokens() + " is measured twice");
                }
                grid.ms[bi][ni][ci] = row.ms();
            }
            grid.checkFull(origin, kind);
            return grid;
        }

        private void checkFull(String origin, String kind) {
            for (int bi = 0; bi < batches.length; bi++) {
                for (int ni = 0; ni < newTokens.length; ni++) {
                    for (int ci = 0; ci < contexts.length; ci++) {
                        if (Double.isNaN(ms[bi][ni][ci])) {
                            throw new IllegalArgumentException(origin + ": the " + kind + " rows are not a full grid: no row for"
                                    + " batch " + (long) batches[bi] + ", new_tokens " + (long) newTokens[ni]
                                    + ", context_tokens " + (long) contexts[ci]);
                        }
                    }
                }
            }
        }

        private static double[] values(TreeSet<Double> set) {
            return set.stream().mapToDouble(Double::doubleValue).toArray();
        }

        double at(double batch, double newPerSequence, double contextPerSequence) {
            Bracket bb = Bracket.of(batches, batch);
            Bracket nb = Bracket.of(newTokens, newPerSequence);
            Bracket cb = Bracket.of(contexts, contextPerSequence);
            double sum = 0;
            for (int i = 0; i < 2; i++) {
                for (int j = 0; j < 2; j++) {
                    for (int k = 0; k < 2; k++) {
                        double weight = bb.weight(i) * nb.weight(j) * cb.weight(k);
                        if (weight != 0) {
                            sum += weight * ms[bb.index(i)][nb.index(j)][cb.index(k)];
                        }
                    }
                }
            }
            return sum;
        }
    }

    /**
     * Where a value falls on one axis: the two grid points to blend and the second one's weight
     * ({@code t}; outside the grid below 0 or above 1, which extrapolates linearly).
     */
    private record Bracket(int low, int high, double t) {
        static Bracket of(double[] axis, double value) {
            if (axis.length == 1) {
                return new Bracket(0, 0, 0);
            }
            int high = 1;
            while (high < axis.length - 1 && axis[high] < value) {
                high++;
            }
            int low = high - 1;
            return new Bracket(low, high, (value - axis[low]) / (axis[high] - axis[low]));
        }

        double weight(int which) {
            return which == 0 ? 1 - t : t;
        }

        int index(int which) {
            return which == 0 ? low : high;
        }
    }
}
