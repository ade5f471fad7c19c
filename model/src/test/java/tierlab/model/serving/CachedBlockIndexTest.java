package tierlab.model.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;

/**
 * The key map of the vllm-v1 pool: the first block caching a key answers, copies answer in caching
 * order once earlier ones go, and removal inside a probe run keeps every other key findable. An
 * index for 8 blocks has 16 slots; a key's home slot is the low 4 bits of {@code lo} here (its upper
 * half is 0), so the keys below collide on purpose.
 */
class CachedBlockIndexTest {

    private static BlockKey key(long lo) {
        return new BlockKey(0x5eedL, lo);
    }

    @Test
    void theFirstCopyAnswersAndTheNextTakesOverInCachingOrder() {
        CachedBlockIndex index = new CachedBlockIndex(8);
        BlockKey a = key(3);
        index.add(a, 5);
        index.add(a, 2);
        index.add(a, 7);
        assertEquals(5, index.first(a));
        assertEquals(List.of(5, 2, 7), index.copiesOf(a));
        assertEquals(1, index.keys());
        assertEquals(3, index.blocks());

        index.remove(2);   // a middle copy: the first still answers
        assertEquals(5, index.first(a));
        assertEquals(List.of(5, 7), index.copiesOf(a));
        index.remove(5);   // the first: the next cached answers
        assertEquals(7, index.first(a));
        index.remove(7);   // the last: the key is gone
        assertEquals(CachedBlockIndex.NONE, index.first(a));
        assertEquals(0, index.keys());
        assertEquals(0, index.blocks());
    }

    @Test
    void removingAKeyInsideAProbeRunKeepsTheOthersFindable() {
        CachedBlockIndex index = new CachedBlockIndex(8);
        // Homes 15, 15, 0 and 1: the run wraps around from slot 15 (15, 0, 1, 2).
        BlockKey x = key(15);
        BlockKey y = key(31);
        BlockKey z = key(16);
        BlockKey w = key(1);
        index.add(x, 0);
        index.add(y, 1);
        index.add(z, 2);
        index.add(w, 3);
        index.remove(0);
        assertEquals(CachedBlockIndex.NONE, index.first(x));
        assertEquals(1, index.first(y));
        assertEquals(2, index.first(z));
        assertEquals(3, index.first(w));
        index.remove(2);
        assertEquals(1, index.first(y));
        assertEquals(3, index.first(w));
        assertEquals(2, index.keys());
        // A key with the same low half but another high half is another key.
        assertEquals(CachedBlockIndex.NONE, index.first(new BlockKey(1, 31)));
    }

    @Test
    void removingABlockThatCachesNothingIsRefused() {
        CachedBlockIndex index = new CachedBlockIndex(8);
        index.add(key(4), 1);
        index.add(key(4), 3);
        assertThrows(IllegalStateException.class, () -> index.remove(2));   // never cached
        index.remove(1);
        assertThrows(IllegalStateException.class, () -> index.remove(1));   // its key is still cached, by block 3 only
        index.remove(3);
        assertThrows(IllegalStateException.class, () -> index.remove(3));   // its key is gone
        index.checkInvariants();
    }

    @Test
    void theInvariantCheckPassesAfterEveryChangeOfAProbeRun() {
        CachedBlockIndex index = new CachedBlockIndex(8);
        long[] los = {15, 31, 16, 1, 47, 2};
        for (int block = 0; block < los.length; block++) {
            index.add(key(los[block]), block);
            index.checkInvariants();
        }
        index.add(key(31), 6);
        index.checkInvariants();
        for (int block : new int[] {0, 2, 1, 6, 4, 3, 5}) {
            index.remove(block);
            index.checkInvariants();
        }
        assertEquals(0, index.keys());
        assertEquals(0, index.blocks());
    }
}
