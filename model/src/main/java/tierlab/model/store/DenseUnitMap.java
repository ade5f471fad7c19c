package tierlab.model.store;

import java.util.ArrayList;
import java.util.List;

/**
 * A map from unit (an L2 byte offset, a multiple of the lane size) to a value, stored in an
 * array indexed by {@code offset / laneBytes}. Units are dense and bounded by the L2 size, so
 * this is both faster than hashing boxed offsets (which are multiples of a power of two and
 * collide) and ordered: iteration goes by ascending offset, never by hash order.
 *
 * <p>{@link tierlab.model.util.OffsetTable} is the general form, for positions whose bound is not
 * known up front or that may lie off the stride (the payload ledger's L1 cells); the store's units
 * are always aligned and bounded by the L2 size, so here one flat array serves, with no page step.
 */
final class DenseUnitMap<V> {
    private final long laneBytes;
    private final Object[] values;
    private int size;

    DenseUnitMap(long laneBytes, int unitCount) {
        this.laneBytes = laneBytes;
        this.values = new Object[unitCount];
    }

    private int index(long unit) {
        return (int) (unit / laneBytes);
    }

    @SuppressWarnings("unchecked")
    V get(long unit) {
        return (V) values[index(unit)];
    }

    /** Lookup by unit index ({@code lane × slotCount + slot}), which spares the division. */
    @SuppressWarnings("unchecked")
    V getAt(int unitIndex) {
        return (V) values[unitIndex];
    }

    boolean containsKey(long unit) {
        return values[index(unit)] != null;
    }

    void put(long unit, V value) {
        int i = index(unit);
        if (values[i] == null) {
            size++;
        }
        values[i] = value;
    }

    void putIfAbsent(long unit, V value) {
        if (!containsKey(unit)) {
            put(unit, value);
        }
    }

    /** Removes the mapping only if it is to this value (as Map.remove(key, value)). */
    void remove(long unit, V value) {
        int i = index(unit);
        if (values[i] != null && values[i] == value) {
            values[i] = null;
            size--;
        }
    }

    /** Removes the unit's mapping, whatever it is, and returns it (or null). */
    @SuppressWarnings("unchecked")
    V remove(long unit) {
        int i = index(unit);
        V old = (V) values[i];
        if (old != null) {
            values[i] = null;
            size--;
        }
        return old;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** The values, by ascending unit. A pass over every unit: for invariant checks, not hot paths. */
    @SuppressWarnings("unchecked")
    List<V> values() {
        List<V> all = new ArrayList<>(size);
        for (Object value : values) {
            if (value != null) {
                all.add((V) value);
            }
        }
        return all;
    }

    /** Units with a value, ascending. */
    List<Long> keys() {
        List<Long> keys = new ArrayList<>(size);
        for (int i = 0; i < values.length; i++) {
            if (values[i] != null) {
                keys.add(i * laneBytes);
            }
        }
        return keys;
    }
}
