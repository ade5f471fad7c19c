package tierlab.model.serving;

import java.util.ArrayList;
import java.util.List;
import tierlab.model.geometry.BlockKey;

/**
 * The key map of {@link PrefixCachingBlockPool}: from a {@link BlockKey} to the GPU blocks caching it,
 * in the order they were cached (vLLM does not de-duplicate, and a lookup takes the first). An
 * open-addressing table holds the keys' two halves and the first block of each key side by side in one
 * {@code long} array (one cache line per probe, where separate arrays cost a miss each); the further
 * copies of a key hang off it in a per-block "next copy" array. A prefix lookup or an eviction is then
 * one probe run over a {@code long} array, with no node, no boxed block number and no list per key,
 * which is what the replay's admission passes and allocations spend their time on.
 *
 * <p>A key is cached by at most one block per block, so the table never holds more keys than the pool
 * has blocks and is sized once (at most half full, linear probing, backward-shift removal, no
 * tombstones). Keys are SHA-256 prefixes, so their low bits are already uniform. Nothing iterates the
 * table, so its slot order decides nothing.
 */
final class CachedBlockIndex {

    static final int NONE = -1;

    /**
     * Slot {@code i} is {@code table[3i .. 3i + 2]}: the first block caching the key plus one (0: an empty
     * slot), the key's {@code lo}, the key's {@code hi}.
     */
    private final long[] table;
    /** Block {@code b}: the next block caching the same key as {@code b}, in caching order, or {@link #NONE}. */
    private final int[] nextCopy;
    private final int mask;
    private int keys;
    private int blocks;

    CachedBlockIndex(int totalBlocks) {
        long capacityLong = Long.highestOneBit(Math.max(8L, totalBlocks) * 2 - 1) << 1;
        if (3 * capacityLong > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("gpuKvBlocks " + totalBlocks + " is too many for the vllm-v1 key map (at most "
                    + (1 << 28) + ")");
        }
        int capacity = (int) capacityLong;
        this.table = new long[3 * capacity];
        this.nextCopy = new int[totalBlocks];
        java.util.Arrays.fill(nextCopy, NONE);
        this.mask = capacity - 1;
    }

    /** Distinct keys cached. */
    int keys() {
        return keys;
    }

    /** Blocks caching a key (copies of one key counted each). */
    int blocks() {
        return blocks;
    }

    /** The first block (in caching order) that caches {@code key}, or {@link #NONE}. */
    int first(BlockKey key) {
        int slot = slotOf(key.hi(), key.lo());
        return slot < 0 ? NONE : firstBlock(slot);
    }

    /** Records that {@code block} (not cached yet) now caches {@code key}, behind any block caching it already. */
    void add(BlockKey key, int block) {
        long hi = key.hi();
        long lo = key.lo();
        blocks++;
        for (int i = home(lo); ; i = (i + 1) & mask) {
            int head = firstBlock(i);
            if (head == NONE) {
                table[3 * i] = block + 1L;
                table[3 * i + 1] = lo;
                table[3 * i + 2] = hi;
                keys++;
                return;
            }
            if (table[3 * i + 1] == lo && table[3 * i + 2] == hi) {
                int last = head;
                while (nextCopy[last] != NONE) {
                    last = nextCopy[last];
                }
                nextCopy[last] = block;
                return;
            }
        }
    }

    /** {@code block} no longer caches {@code key}; the key leaves the table with its last copy. */
    void remove(BlockKey key, int block) {
        int slot = slotOf(key.hi(), key.lo());
        if (slot < 0) {
            throw new IllegalStateException("G2: key " + key + " of GPU block " + block + " is not in the key map");
        }
        int head = firstBlock(slot);
        if (head == block) {
            blocks--;
            int next = nextCopy[block];
            nextCopy[block] = NONE;
            if (next != NONE) {
                table[3 * slot] = next + 1L;
            } else {
                removeSlot(slot);
            }
            return;
        }
        for (int previous = head; nextCopy[previous] != NONE; previous = nextCopy[previous]) {
            if (nextCopy[previous] == block) {
                blocks--;
                nextCopy[previous] = nextCopy[block];
                nextCopy[block] = NONE;
                return;
            }
        }
        throw new IllegalStateException("G2: GPU block " + block + " is not among the blocks caching key " + key);
    }

    /** The blocks caching {@code key}, in caching order (for invariant checks and their messages). */
    List<Integer> copiesOf(BlockKey key) {
        List<Integer> copies = new ArrayList<>(1);
        for (int block = first(key); block != NONE; block = nextCopy[block]) {
            copies.add(block);
        }
        return copies;
    }

    private int home(long lo) {
        return (int) (lo ^ (lo >>> 32)) & mask;
    }

    private int firstBlock(int slot) {
        return (int) table[3 * slot] - 1;
    }

    private int slotOf(long hi, long lo) {
        for (int i = home(lo); ; i = (i + 1) & mask) {
            if (table[3 * i] == 0) {
                return NONE;
            }
            if (table[3 * i + 1] == lo && table[3 * i + 2] == hi) {
                return i;
            }
        }
    }

    /** Empties slot {@code hole} and moves later members of its probe run back into it where their home allows. */
    private void removeSlot(int hole) {
        table[3 * hole] = 0;
        keys--;
        for (int j = (hole + 1) & mask; table[3 * j] != 0; j = (j + 1) & mask) {
            int homeOfJ = home(table[3 * j + 1]);
            boolean movable = hole <= j ? (homeOfJ <= hole || homeOfJ > j) : (homeOfJ <= hole && homeOfJ > j);
            if (movable) {
                System.arraycopy(table, 3 * j, table, 3 * hole, 3);
                table[3 * j] = 0;
                hole = j;
            }
        }
    }
}
