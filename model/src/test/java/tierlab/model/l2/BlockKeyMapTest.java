package tierlab.model.l2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;

class BlockKeyMapTest {

    @Test
    void agreesWithHashMapOverRandomPutsAndRemoves() {
        for (long seed = 1; seed <= 20; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            BlockKeyMap<Integer> map = new BlockKeyMap<>(4);
            Map<BlockKey, Integer> reference = new HashMap<>();
            List<BlockKey> universe = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                // Half the keys share their low bits, so probe runs collide and removals must shift.
                long lo = i % 2 == 0 ? random.nextLong() : 7;
                universe.add(new BlockKey(random.nextLong(), lo));
            }
            for (int step = 0; step < 5_000; step++) {
                BlockKey key = universe.get(random.nextInt(universe.size()));
                int choice = random.nextInt(6);
                if (choice < 2) {
                    map.remove(key);
                    reference.remove(key);
                } else if (choice == 2) {
                    int value = random.nextInt(1_000);
                    boolean wasAbsent = !reference.containsKey(key);
                    assertEquals(wasAbsent, map.putIfAbsent(key, value), "seed " + seed + " step " + step);
                    reference.putIfAbsent(key, value);
                } else {
                    int value = random.nextInt(1_000);
                    map.put(key, value);
                    reference.put(key, value);
                }
                assertEquals(reference.size(), map.size(), "seed " + seed + " step " + step);
                BlockKey probe = universe.get(random.nextInt(universe.size()));
                assertEquals(reference.get(probe), map.get(probe), "seed " + seed + " step " + step);
            }
            for (BlockKey key : universe) {
                assertEquals(reference.get(key), map.get(key), "seed " + seed);
            }
        }
    }

    @Test
    void removingAnAbsentKeyChangesNothing() {
        BlockKeyMap<String> map = new BlockKeyMap<>(2);
        BlockKey a = new BlockKey(1, 2);
        map.put(a, "a");
        map.remove(new BlockKey(3, 2));
        assertEquals("a", map.get(a));
        assertEquals(1, map.size());
        map.remove(a);
        assertNull(map.get(a));
        assertEquals(0, map.size());
    }
}
