package tierlab.model.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

final class OffsetTableTest {

    private static final long LANE_BYTES = 2_359_296L;

    /**
     * Positions of every kind one table must take: lane multiples (paged), lane multiples past the
     * paged limit, page-aligned offsets off the lane stride, negative numbers and 63-bit hashes
     * (all on the map path). Answers must be those of one ordinary map whatever the path.
     */
    private static long position(SplittableRandom random) {
        return switch (random.nextInt(5)) {
            case 0, 1 -> random.nextLong(3_000) * LANE_BYTES;
            case 2 -> ((1L << 26) + random.nextLong(50)) * LANE_BYTES;
            case 3 -> random.nextLong(3_000) * 4096 + 4096 * random.nextLong(1, 3);
            default -> random.nextBoolean() ? -random.nextLong(1, 1_000) : random.nextLong(1L << 40, Long.MAX_VALUE);
        };
    }

    @Test
    void agreesWithAnOrdinaryMapOnEveryKindOfPosition() {
        SplittableRandom random = new SplittableRandom(11);
        OffsetTable<String> table = new OffsetTable<>(LANE_BYTES);
        TreeMap<Long, String> reference = new TreeMap<>();
        List<Long> seen = new ArrayList<>();
        for (int step = 0; step < 200_000; step++) {
            long position = !seen.isEmpty() && random.nextInt(3) == 0 ? seen.get(random.nextInt(seen.size())) : position(random);
            seen.add(position);
            String value = "v" + step;
            switch (random.nextInt(4)) {
                case 0 -> assertEquals(reference.remove(position), table.remove(position), "remove at step " + step);
                case 1 -> assertEquals(reference.putIfAbsent(position, value), table.putIfAbsent(position, value), "putIfAbsent at step " + step);
                case 2 -> {
                    reference.put(position, value);
                    table.put(position, value);
                }
                default -> assertEquals(reference.get(position), table.get(position), "get at step " + step);
            }
            assertEquals(reference.size(), table.size(), "size at step " + step);
        }
        for (long position : seen) {
            assertEquals(reference.get(position), table.get(position), "position " + position);
        }
        List<String> values = new ArrayList<>(table.values());
        List<String> expected = new ArrayList<>(reference.values());
        values.sort(null);
        expected.sort(null);
        assertEquals(expected, values);
    }

    @Test
    void clearForgetsEverythingAndStrideOneIndexesSmallNumbers() {
        OffsetTable<Long> table = new OffsetTable<>(1);
        for (long key = 0; key < 10_000; key++) {
            table.put(key, key);
        }
        table.put(-5, -5L);
        assertEquals(10_001, table.size());
        assertEquals(7_777L, table.get(7_777));
        assertEquals(-5L, table.remove(-5));
        table.clear();
        assertEquals(0, table.size());
        assertNull(table.get(7_777));
        assertThrows(IllegalArgumentException.class, () -> new OffsetTable<>(0));
        assertThrows(NullPointerException.class, () -> table.put(1, null));
    }
}
