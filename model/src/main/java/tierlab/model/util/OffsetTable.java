package tierlab.model.util;

import java.util.Objects;

/**
 * A map from non-negative {@code long} positions (byte offsets, lane numbers) to non-null values,
 * for positions that are multiples of a stride and bunched together: L1 lane cells, L2 units and
 * GPU block lanes. A position {@code p} with {@code p % strideBytes == 0} lives at index
 * {@code p / strideBytes} of a paged array, so a lookup is a division and two array reads instead
 * of a hash probe into a table that outgrows the CPU caches; consecutive lanes of one copy land in
 * the same page. Pages are allocated when first written, so a sparse 4 TiB L2 costs only the
 * pages it touches.
 *
 * <p>A position off the stride, or too far out (index 2^26 and above), goes to a {@link LongMap}
 * instead (an L1 pool may hand out page-aligned offsets that are not lane-aligned when a lane is
 * not a whole number of pages), so every position is accepted and the answers are the same as one
 * map's. There is no iteration, hence no order to leak into decisions.
 */
public final class OffsetTable<V> {

    private static final int PAGE_SHIFT = 8;
    private static final int PAGE_SLOTS = 1 << PAGE_SHIFT;
    private static final int PAGE_MASK = PAGE_SLOTS - 1;
    /**
     * Indexes from here on go to the {@link LongMap}: a fixed bound (so the path is a function of
     * the position alone) that caps the page directory at 2^18 references even when a caller's
     * positions are sparse 63-bit hashes, while every L2 of up to 2^26 units stays paged.
     */
    private static final long PAGED_INDEX_LIMIT = 1L << 26;

    private final long strideBytes;
    private Object[][] pages = new Object[16][];
    private final LongMap<V> offStride = new LongMap<>();
    private int pagedSize;

    /** @param strideBytes the spacing of the positions that take the fast path (at least 1) */
    public OffsetTable(long strideBytes) {
        if (strideBytes < 1) {
            throw new IllegalArgumentException("stride must be at least 1 byte, was " + strideBytes);
        }
        this.strideBytes = strideBytes;
    }

    public int size() {
        return pagedSize + offStride.size();
    }

    /** The paged index of {@code position}, or -1 when it takes the {@link LongMap} path. */
    private int index(long position) {
        if (position < 0 || position % strideBytes != 0) {
            return -1;
        }
        long index = position / strideBytes;
        return index < PAGED_INDEX_LIMIT ? (int) index : -1;
    }

    /** The value at {@code position}, or {@code null}. */
    @SuppressWarnings("unchecked")
    public V get(long position) {
        int index = index(position);
        if (index < 0) {
            return offStride.get(position);
        }
        Object[] page = pageIfAllocated(index);
        return page == null ? null : (V) page[index & PAGE_MASK];
    }

    /** The page that holds paged index {@code index}, or {@code null} if nothing was ever written there. */
    private Object[] pageIfAllocated(int index) {
        int page = index >>> PAGE_SHIFT;
        return page < pages.length ? pages[page] : null;
    }

    /** Stores {@code value} at {@code position}, replacing what was there. */
    public void put(long position, V value) {
        Objects.requireNonNull(value, "value");
        int index = index(position);
        if (index < 0) {
            offStride.put(position, value);
            return;
        }
        Object[] page = pageFor(index >>> PAGE_SHIFT);
        if (page[index & PAGE_MASK] == null) {
            pagedSize++;
        }
        page[index & PAGE_MASK] = value;
    }

    /**
     * Stores {@code value} unless the position holds one already; returns the existing value in
     * that case (and changes nothing), else {@code null}.
     */
    @SuppressWarnings("unchecked")
    public V putIfAbsent(long position, V value) {
        Objects.requireNonNull(value, "value");
        int index = index(position);
        if (index < 0) {
            return offStride.putIfAbsent(position, value);
        }
        Object[] page = pageFor(index >>> PAGE_SHIFT);
        Object old = page[index & PAGE_MASK];
        if (old != null) {
            return (V) old;
        }
        page[index & PAGE_MASK] = value;
        pagedSize++;
        return null;
    }

    /**
     * Every value: the paged ones by ascending position, then the off-stride ones in the
     * {@link LongMap}'s table order. A caller sorts before it decides anything from it (the store's
     * invariant check does); a pass over every page, not for hot paths.
     */
    @SuppressWarnings("unchecked")
    public java.util.List<V> values() {
        java.util.List<V> all = new java.util.ArrayList<>(size());
        for (Object[] page : pages) {
            if (page != null) {
                for (Object value : page) {
                    if (value != null) {
                        all.add((V) value);
                    }
                }
            }
        }
        all.addAll(offStride.valuesInTableOrder());
        return all;
    }

    /** Removes what is at {@code position} and returns it, or {@code null} if nothing was. */
    @SuppressWarnings("unchecked")
    public V remove(long position) {
        int index = index(position);
        if (index < 0) {
            return offStride.remove(position);
        }
        Object[] page = pageIfAllocated(index);
        if (page == null) {
            return null;
        }
        V old = (V) page[index & PAGE_MASK];
        if (old != null) {
            page[index & PAGE_MASK] = null;
            pagedSize--;
        }
        return old;
    }

    /** Empties the table and gives back its pages. */
    public void clear() {
        pages = new Object[16][];
        pagedSize = 0;
        offStride.clear();
    }

    private Object[] pageFor(int page) {
        if (page >= pages.length) {
            int grown = pages.length;
            while (grown <= page) {
                grown *= 2;
            }
            pages = java.util.Arrays.copyOf(pages, grown);
        }
        Object[] slots = pages[page];
        if (slots == null) {
            slots = new Object[PAGE_SLOTS];
            pages[page] = slots;
        }
        return slots;
    }
}
