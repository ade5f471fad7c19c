package tierlab.model.serving;

import java.util.ArrayList;
import java.util.List;
import tierlab.model.geometry.BlockKey;

/**
 * The key map of {@link PrefixCachingBlockPool}: from a {@link BlockKey} to the GPU blocks caching it,
 * in the order they were cached (vLLM does not de-duplicate, and a lookup takes the first). An
 * open-addressing table of one {@code long} per slot holds a 32-bit hash of the key beside the first
 * block caching it; the key's two halves live in a per-block array ({@code keyOfBlock}), compared only
 * when the hash matches, and the further copies of a key hang off the first in a per-block "next copy"
 * array. The table is a third of what a slot of (block, lo, hi) took, small enough to stay in the CPU's
 * caches, and a probe that finds nothing (the end of every prefix walk) touches the table alone. A
 * prefix lookup or an eviction is then one probe run, with no node, no boxed block number and no list
 * per key, which is what the replay's admission passes and allocations spend their time on.
 *
 * <p>A key is cached by at most one block per block, so the table never holds more keys than the pool
 * has blocks and is sized once (at most half full, linear probing, backward-shift removal, no
 * tombstones). Keys are SHA-256 prefixes, so their low bits are already uniform; a slot's home is the
 * low bits of its hash, so moving entries back after a removal reads nothing but the table. Nothing
 * iterates the table, so its slot order decides nothing.
 */
final class CachedBlockIndex {

    static final int NONE = -1;

    /**
     * Slot {@code i}: 0 when empty, else the key's {@link #hash} in the high 32 bits and the first block
     * caching the key plus one in the low 32 bits.
     */
    private final long[] table;
    /** Block {@code b}'s key while it caches one: {@code lo} at {@code 2b}, {@code hi} at {@code 2b + 1}. */
    private final long[] keyOfBlock;
    /** Block {@code b}: the next block caching the same key as {@code b}, in caching order, or {@link #NONE}. */
    private final int[] nextCopy;
    private final int mask;
    private int keys;
    private int blocks;

    CachedBlockIndex(int totalBlocks) {
        long capacityLong = Long.highestOneBit(Math.max(8L, totalBlocks) * 2 - 1) << 1;
        if (capacityLong > 1 << 30) {
            throw new IllegalArgumentException("gpuKvBlocks " + totalBlocks + " is too many for the vllm-v1 key map (at most "
                    + (1 << 29) + ")");
        }
        int capacity = (int) capacityLong;
        this.table = new long[capacity];
        this.keyOfBlock = new long[2 * totalBlocks];
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
        int hash = hash(lo);
        keyOfBlock[2 * block] = lo;
        keyOfBlock[2 * block + 1] = hi;
        blocks++;
        for (int i = hash & mask; ; i = (i + 1) & mask) {
            long entry = table[i];
            if (entry == 0) {
                table[i] = slotEntry(hash, block);
                keys++;
                return;
            }
            if (holds(entry, hash, lo, hi)) {
                int last = (int) entry - 1;
                while (nextCopy[last] != NONE) {
                    last = nextCopy[last];
                }
                nextCopy[last] = block;
                return;
            }
        }
    }

    /**
     * {@code block} no longer caches its key; the key leaves the table with its last copy. The key is read
     * from the block's own record, so an eviction touches no key object.
     */
    void remove(int block) {
        long lo = keyOfBlock[2 * block];
        long hi = keyOfBlock[2 * block + 1];
        int slot = slotOf(hi, lo);
        if (slot < 0) {
            throw new IllegalStateException("G2: the key last recorded for GPU block " + block + " " + keyText(block)
                    + " is not in the key map");
        }
        int head = firstBlock(slot);
        if (head == block) {
            blocks--;
            int next = nextCopy[block];
            nextCopy[block] = NONE;
            if (next != NONE) {
                table[slot] = slotEntry(hash(lo), next);
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
        throw new IllegalStateException("G2: GPU block " + block + " is not among the blocks caching its key " + keyText(block));
    }

    private String keyText(int block) {
        return "(lo " + Long.toHexString(keyOfBlock[2 * block]) + ", hi " + Long.toHexString(keyOfBlock[2 * block + 1]) + ")";
    }

    /** The blocks caching {@code key}, in caching order (for invariant checks and their messages). */
    List<Integer> copiesOf(BlockKey key) {
        List<Integer> copies = new ArrayList<>(1);
        for (int block = first(key); block != NONE; block = nextCopy[block]) {
            copies.add(block);
        }
        return copies;
    }

    /**
     * The table against the blocks' records: every slot's hash is its head block's key's, and the slot is
     * where a probe for that key stops; every copy of a key holds that key; slots and copies add up to
     * {@link #keys()} and {@link #blocks()}. Throws IllegalStateException naming G2.
     */
    void checkInvariants() {
        int slots = 0;
        int copies = 0;
        for (int i = 0; i < table.length; i++) {
            if (table[i] == 0) {
                continue;
            }
            slots++;
            int head = firstBlock(i);
            long lo = keyOfBlock[2 * head];
            long hi = keyOfBlock[2 * head + 1];
            if ((int) (table[i] >>> 32) != hash(lo) || slotOf(hi, lo) != i) {
                throw new IllegalStateException("G2: key map slot " + i + " (first block " + head + ") is not where its key is found");
            }
            for (int block = head; block != NONE; block = nextCopy[block]) {
                copies++;
                if (keyOfBlock[2 * block] != lo || keyOfBlock[2 * block + 1] != hi || copies > nextCopy.length) {
                    throw new IllegalStateException("G2: GPU block " + block + " is a copy of the key of block " + head
                            + " in the key map but records another key");
                }
            }
        }
        if (slots != keys || copies != blocks) {
            throw new IllegalStateException("G2: key map holds " + slots + " keys and " + copies + " blocks, counts say "
                    + keys + " and " + blocks);
        }
    }

    /** The key's 32-bit hash: its low bits are the home slot, all of it filters a probe before the key is read. */
    private static int hash(long lo) {
        return (int) (lo ^ (lo >>> 32));
    }

    private static long slotEntry(int hash, int block) {
        return ((long) hash << 32) | (block + 1L);
    }

    private int firstBlock(int slot) {
        return (int) table[slot] - 1;
    }

    /** Whether the slot {@code entry} (not empty) is the key ({@code lo}, {@code hi}) of hash {@code hash}. */
    private boolean holds(long entry, int hash, long lo, long hi) {
        if ((int) (entry >>> 32) != hash) {
            return false;
        }
        int head = (int) entry - 1;
        return keyOfBlock[2 * head] == lo && keyOfBlock[2 * head + 1] == hi;
    }

    private int slotOf(long hi, long lo) {
        int hash = hash(lo);
        for (int i = hash & mask; ; i = (i + 1) & mask) {
            long entry = table[i];
            if (entry == 0) {
                return NONE;
            }
            if (holds(entry, hash, lo, hi)) {
                return i;
            }
        }
    }

    /** Empties slot {@code hole} and moves later members of its probe run back into it where their home allows. */
    private void removeSlot(int hole) {
        table[hole] = 0;
        keys--;
        for (int j = (hole + 1) & mask; table[j] != 0; j = (j + 1) & mask) {
            int homeOfJ = (int) (table[j] >>> 32) & mask;
            boolean movable = hole <= j ? (homeOfJ <= hole || homeOfJ > j) : (homeOfJ <= hole && homeOfJ > j);
            if (movable) {
                table[hole] = table[j];
                table[j] = 0;
                hole = j;
            }
        }
    }
}
