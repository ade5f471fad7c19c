package tierlab.model.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

final class LongMapTest {

    @Test
    void agreesWithHashMapOverRandomInsertsAndRemoves() {
        // Keys are multiples of 2 MiB, like L2 byte offsets, from a small range so that removals
        // happen inside long probe runs and exercise backward-shift deletion.
        SplittableRandom random = new SplittableRandom(3);
        LongMap<String> map = new LongMap<>();
        Map<Long, String> reference = new HashMap<>();
        for (int step = 0; step < 200_000; step++) {
            long key = random.nextLong(2_000) * 2_359_296L;
            if (random.nextInt(3) == 0) {
                assertEquals(reference.remove(key), map.remove(key), "remove at step " + step);
            } else {
                String value = "v" + step;
                assertEquals(reference.putIfAbsent(key, value), map.putIfAbsent(key, value), "put at step " + step);
            }
            assertEquals(reference.size(), map.size());
        }
        for (long index = 0; index < 2_000; index++) {
            long key = index * 2_359_296L;
            assertEquals(reference.get(key), map.get(key), "key " + key);
        }
    }

    @Test
    void holdsExtremeKeysAndGrowsPastItsFirstTable() {
        LongMap<Long> map = new LongMap<>();
        Long minimum = Long.MIN_VALUE;
        map.putIfAbsent(Long.MIN_VALUE, minimum);
        map.putIfAbsent(0, 0L);
        map.putIfAbsent(-1, -1L);
        for (long key = 1; key <= 10_000; key++) {
            map.putIfAbsent(key << 32, key);
        }
        assertSame(minimum, map.get(Long.MIN_VALUE));
        assertEquals(-1L, map.get(-1));
        assertEquals(0L, map.get(0));
        assertEquals(7_777L, map.get(7_777L << 32));
        assertNull(map.get(10_001L << 32));
        assertEquals(10_003, map.size());
    }
}
