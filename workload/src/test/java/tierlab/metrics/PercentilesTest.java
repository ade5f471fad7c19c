package tierlab.metrics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Each definition by hand: odd, even, one value and no values. */
class PercentilesTest {

    @Test
    void nearestRankTakesTheCeilingRankOfSortedValues() {
        long[] odd = {10, 20, 30, 40, 50};
        // rank ceil(0.5 * 5) = 3 -> 30; ceil(0.99 * 5) = 5 -> 50; ceil(0.2 * 5) = 1 -> 10; 0 clamps to rank 1.
        assertEquals(30, Percentiles.nearestRank(odd, 50));
        assertEquals(50, Percentiles.nearestRank(odd, 99));
        assertEquals(10, Percentiles.nearestRank(odd, 20));
        assertEquals(10, Percentiles.nearestRank(odd, 0));
        assertEquals(50, Percentiles.nearestRank(odd, 100));
        long[] even = {10, 20, 30, 40};
        // rank ceil(0.5 * 4) = 2 -> 20: the lower middle value, not a mean; ceil(0.9 * 4) = 4 -> 40.
        assertEquals(20, Percentiles.nearestRank(even, 50));
        assertEquals(40, Percentiles.nearestRank(even, 90));
        assertEquals(7, Percentiles.nearestRank(new long[] {7}, 50));
        assertEquals(7, Percentiles.nearestRank(new long[] {7}, 99));
        assertThrows(IllegalArgumentException.class, () -> Percentiles.nearestRank(new long[0], 50));

        // The 90th percentile of 1..10: rank 9.
        assertEquals(9, Percentiles.nearestRank(new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 90), 0);
        assertEquals(2.5, Percentiles.nearestRank(new double[] {1.5, 2.5, 3.5, 4.5}, 50), 0);
        assertEquals(0.25, Percentiles.nearestRank(new double[] {0.25}, 10), 0);
        assertThrows(IllegalArgumentException.class, () -> Percentiles.nearestRank(new double[0], 50));
    }

    @Test
    void nearestRankWithMidpointMedianDiffersFromNearestRankOnlyAtAnEvenMedian() {
        double[] even = {40, 10, 30, 20};
        assertEquals(25, Percentiles.nearestRankWithMidpointMedian(even, 50), 0);
        assertEquals(40, Percentiles.nearestRankWithMidpointMedian(even, 90), 0);
        assertEquals(10, Percentiles.nearestRankWithMidpointMedian(even, 25), 0);
        double[] odd = {50, 10, 40, 20, 30};
        assertEquals(30, Percentiles.nearestRankWithMidpointMedian(odd, 50), 0);
        assertEquals(50, Percentiles.nearestRankWithMidpointMedian(odd, 90), 0);
        assertEquals(3, Percentiles.nearestRankWithMidpointMedian(new double[] {3}, 50), 0);
        assertEquals(3, Percentiles.nearestRankWithMidpointMedian(new double[] {3}, 90), 0);
        assertTrue(Double.isNaN(Percentiles.nearestRankWithMidpointMedian(new double[0], 50)));
        assertTrue(Double.isNaN(Percentiles.nearestRankWithMidpointMedian(new double[0], 90)));
        assertArrayEquals(new double[] {40, 10, 30, 20}, even, 0, "the input is left in its order");
    }

    @Test
    void medianMidpointIsTheMeanOfTheTwoMiddleValues() {
        assertEquals(2, Percentiles.medianMidpoint(new double[] {3, 1, 2}), 0);
        assertEquals(2.5, Percentiles.medianMidpoint(new double[] {4, 1, 3, 2}), 0);
        assertEquals(11, Percentiles.medianMidpoint(new double[] {12, 10}), 0);
        assertEquals(7, Percentiles.medianMidpoint(new double[] {7}), 0);
        assertTrue(Double.isNaN(Percentiles.medianMidpoint(new double[0])));
        double[] values = {4, 1, 3, 2};
        Percentiles.medianMidpoint(values);
        assertArrayEquals(new double[] {4, 1, 3, 2}, values, 0);
    }

    @Test
    void medianInterpolatedIsCommonsMathsMedian() {
        assertEquals(2, Percentiles.medianInterpolated(new double[] {3, 1, 2}), 0);
        assertEquals(2.5, Percentiles.medianInterpolated(new double[] {4, 1, 3, 2}), 0);
        assertEquals(7, Percentiles.medianInterpolated(new double[] {7}), 0);
        assertTrue(Double.isNaN(Percentiles.medianInterpolated(new double[0])));
        // Where the two definitions part: lower + (upper - lower) / 2 overflows to infinity where the
        // sum of the two middle values cancels to 0.
        double[] extremes = {-Double.MAX_VALUE, Double.MAX_VALUE};
        assertEquals(0, Percentiles.medianMidpoint(extremes), 0);
        assertNotEquals(Percentiles.medianMidpoint(extremes), Percentiles.medianInterpolated(extremes));
    }

    @Test
    void upperMedianTakesTheHigherMiddleValue() {
        assertEquals(20, Percentiles.upperMedianOrZero(new long[] {30, 10, 20}));
        assertEquals(30, Percentiles.upperMedianOrZero(new long[] {40, 10, 30, 20}));
        assertEquals(5, Percentiles.upperMedianOrZero(new long[] {5}));
        assertEquals(0, Percentiles.upperMedianOrZero(new long[0]));
        long[] values = {40, 10, 30, 20};
        Percentiles.upperMedianOrZero(values);
        assertArrayEquals(new long[] {40, 10, 30, 20}, values);

        assertEquals(2.5, Percentiles.upperMedian(new double[] {1.5, 2.5, 3.5}), 0);
        assertEquals(3.5, Percentiles.upperMedian(new double[] {1.5, 2.5, 3.5, 4.5}), 0);
        assertEquals(0.5, Percentiles.upperMedian(new double[] {0.5}), 0);
        assertThrows(IllegalArgumentException.class, () -> Percentiles.upperMedian(new double[0]));
    }
}
