package tierlab.model.io;

import java.util.Objects;
import tierlab.model.io.IoOp.Content;

/**
 * The ledger's map from a {@code long} position (a byte offset, or a GPU block lane) to the
 * {@link Content} held there: open addressing with linear probing over a power-of-two table, the
 * layout of {@code tierlab.model.policy.LongNodeMap}. It spares the boxed keys and entry objects of
 * {@code HashMap<Long, Content>}, which the ledger touched for every lane of every copy, and its
 * home slot mixes all 64 bits, so offsets that are multiples of a large power of two spread out.
 *
 * <p>A {@code null} value marks an empty slot (values are never null); removal uses backward-shift
 * deletion, so there are no tombstones. No iteration is offered: the ledger looks up by position only.
 */
final class LongContentMap {

    private static final int MIN_TABLE_SIZE = 16;
    private static final int MAX_TABLE_SIZE = 1 << 30;

    private long[] keys;
    private Content[] values;
    private int mask;
    private int size;
    private int growAtSize;

    LongContentMap() {
        allocate(MIN_TABLE_SIZE);
    }

    int size() {
        return size;
    }

    /** The content stored at {@code key}, or {@code null}. */
    Content get(long key) {
        int slot = home(key);
        while (true) {
            Content value = values[slot];
            if (value == null) {
                return null;
            }
            if (keys[slot] == key) {
                return value;
            }
            slot = (slot + 1) & mask;
        }
    }

    /** Stores {@code value} at {@code key}, replacing what was there. */
    void put(long key, Content value) {
        Objects.requireNonNull(value, "value");
        int slot = home(key);
        while (true) {
            Content existing = values[slot];
            if (existing == null) {
                break;
            }
            if (keys[slot] == key) {
                values[slot] = value;
                return;
            }
            slot = (slot + 1) & mask;
        }
        keys[slot] = key;
        values[slot] = value;
        if (++size > growAtSize) {
            grow();
        }
    }

    /** Removes the key if present. */
    void remove(long key) {
        int slot = home(key);
        while (true) {
            Content value = values[slot];
            if (value == null) {
                return;
            }
            if (keys[slot] == key) {
                deleteAt(slot);
                return;
            }
            slot = (slot + 1) & mask;
        }
    }

    void clear() {
        allocate(MIN_TABLE_SIZE);
        size = 0;
    }

    /**
     * Backward-shift deletion: later entries of the same probe run move into the gap when the gap
     * lies between their home slot and their current slot (cyclically), so every remaining key stays
     * reachable from its home without tombstones.
     */
    private void deleteAt(int slot) {
        int gap = slot;
        int probe = slot;
        while (true) {
            probe = (probe + 1) & mask;
            if (values[probe] == null) {
                break;
            }
            int probeHome = home(keys[probe]);
            if (((probe - probeHome) & mask) >= ((probe - gap) & mask)) {
                keys[gap] = keys[probe];
                values[gap] = values[probe];
                gap = probe;
            }
        }
        values[gap] = null;
        size--;
    }

    private void grow() {
        if (keys.length >= MAX_TABLE_SIZE) {
            throw new IllegalStateException("LongContentMap: more than " + growAtSize + " keys");
        }
        long[] oldKeys = keys;
        Content[] oldValues = values;
        allocate(oldKeys.length * 2);
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldValues[i] != null) {
                int slot = home(oldKeys[i]);
                while (values[slot] != null) {
                    slot = (slot + 1) & mask;
                }
                keys[slot] = oldKeys[i];
                values[slot] = oldValues[i];
            }
        }
    }

    private void allocate(int tableSize) {
        keys = new long[tableSize];
        values = new Content[tableSize];
        mask = tableSize - 1;
        // A load factor of 0.6 keeps linear probe runs short while costing far less than chaining.
        growAtSize = (int) ((long) tableSize * 3 / 5);
    }

    /** The home slot: MurmurHash3's 64-bit finaliser (pure arithmetic: the same layout on every run). */
    private int home(long key) {
        long h = key;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return (int) h & mask;
    }
}
