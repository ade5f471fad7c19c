package tierlab.model.store;

import java.util.AbstractList;
import java.util.RandomAccess;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp.Content;

/**
 * The units and expected payloads of a hit as read-only list views over two small arrays (the
 * slot and key of each hit block), so a lookup that only classifies allocates no per-unit objects.
 * Unit i is lane {@code i % tp} of block {@code i / tp}.
 */
final class HitRanges {
    private HitRanges() {}

    static final class Units extends AbstractList<Long> implements RandomAccess {
        private final int[] slots;
        private final int tp;
        private final int slotCount;
        private final long laneBytes;

        Units(int[] slots, int tp, int slotCount, long laneBytes) {
            this.slots = slots;
            this.tp = tp;
            this.slotCount = slotCount;
            this.laneBytes = laneBytes;
        }

        @Override
        public Long get(int index) {
            int lane = index % tp;
            return ((long) lane * slotCount + slots[index / tp]) * laneBytes;
        }

        @Override
        public int size() {
            return slots.length * tp;
        }
    }

    static final class Expected extends AbstractList<Content> implements RandomAccess {
        private final BlockKey[] keys;
        private final int tp;

        Expected(BlockKey[] keys, int tp) {
            this.keys = keys;
            this.tp = tp;
        }

        @Override
        public Content get(int index) {
            return new Content(keys[index / tp], index % tp);
        }

        @Override
        public int size() {
            return keys.length * tp;
        }
    }
}
