package tierlab.model.store;

import tierlab.model.KnownBug;
import tierlab.model.l2.L2Index;
import tierlab.model.l2.L2Ring;
import tierlab.model.l2.L2Snapshot;

/**
 * The L2 tier's state as one object: the ring of slots, the key index over it, and the epochs that
 * version what the slots hold (the store epoch, bumped by every store commit and every lost write,
 * and per unit the epoch of its last one; a promotion that read a unit before a newer epoch is
 * stale). It is created outside a {@link TieredStore} and handed to it, so what L2 holds is an object
 * of its own rather than a part of one store's insides. Usually each store has its own pool; a
 * fleet's instances on one host may share one, under the rules of {@link PoolMembers} (X1–X3).
 *
 * <p>The store epoch belongs here and not to the store: it is the version sequence of the index's
 * entries ({@link L2Index.Entry#version()}), and a restored pool continues it after the newest.
 */
public final class L2Pool {
    private final int slotCount;
    private final int tp;
    private final long laneBytes;
    private final boolean visibleBeforeAllLanes;
    private final L2Ring ring;
    private final L2Index index;
    /** The epoch of the newest store commit or lost write. */
    private long storeEpoch;
    /** Per unit index ({@code lane × slotCount + slot}), the epoch of the last store (or lost write) of that unit. */
    private final long[] unitEpochs;
    /** The stores serving from this pool and the rules between them. */
    private final PoolMembers members;

    private L2Pool(StoreSettings settings, L2Ring ring) {
        this.slotCount = Math.toIntExact(Math.min(Integer.MAX_VALUE, settings.slotCount()));
        this.tp = settings.geometry().tp();
        this.laneBytes = settings.geometry().laneBytes();
        this.visibleBeforeAllLanes = settings.has(KnownBug.R12_VISIBLE_BEFORE_ALL_LANES);
        this.ring = ring;
        this.index = new L2Index(slotCount, tp, visibleBeforeAllLanes);
        this.unitEpochs = new long[Math.toIntExact((long) slotCount * tp)];
        this.members = new PoolMembers(slotCount, tp);
    }

    /** An empty pool of the size and geometry {@code settings} give. */
    public static L2Pool empty(StoreSettings settings) {
        return new L2Pool(settings, new L2Ring(Math.min(Integer.MAX_VALUE, settings.slotCount())));
    }

    /**
     * A pool holding {@code snapshot}'s ring and committed entries, the store epoch continuing after
     * the newest entry's. A snapshot of another geometry or capacity is refused with a message naming
     * the mismatch.
     */
    public static L2Pool restore(StoreSettings settings, L2Snapshot snapshot) {
        Recovery.checkFits(settings, snapshot);
        int slots = Math.toIntExact(Math.min(Integer.MAX_VALUE, settings.slotCount()));
        L2Pool pool = new L2Pool(settings, L2Ring.restore(slots, snapshot.runsOldestFirst(), snapshot.head(),
                snapshot.nextRunId()));
        for (L2Index.EntryRecord record : snapshot.entries()) {
            pool.index.restoreVisible(record);
            pool.storeEpoch = Math.max(pool.storeEpoch, record.version());
        }
        return pool;
    }

    /**
     * Refuses to serve a store whose settings describe another L2 than this pool's (slots, lanes, or
     * the index's visibility rule) with a message naming both.
     */
    void checkServes(StoreSettings settings) {
        boolean r12 = settings.has(KnownBug.R12_VISIBLE_BEFORE_ALL_LANES);
        if (Math.min(Integer.MAX_VALUE, settings.slotCount()) != slotCount || settings.geometry().tp() != tp
                || settings.geometry().laneBytes() != laneBytes || r12 != visibleBeforeAllLanes) {
            throw new IllegalArgumentException("L2 pool: it holds " + slotCount + " slots of " + laneBytes + " B lanes with tp="
                    + tp + (visibleBeforeAllLanes ? " (R12 on)" : "") + ", but the store has " + settings.slotCount()
                    + " slots of " + settings.geometry().laneBytes() + " B with tp=" + settings.geometry().tp() + (r12 ? " (R12 on)" : ""));
        }
    }

    PoolMembers members() {
        return members;
    }

    /** How many stores serve from this pool. */
    public int memberCount() {
        return members.size();
    }

    /**
     * Whether another store's action changed the store that is member {@code member} (dropped an L1
     * copy, released a lease it may wait for) since this was last asked; the runtime driving that
     * store resumes it ({@link TieredStore#resumeWaiting}). Clears the mark.
     */
    public boolean takeWoken(int member) {
        return members.takeWoken(member);
    }

    public L2Ring ring() {
        return ring;
    }

    public L2Index index() {
        return index;
    }

    public int slotCount() {
        return slotCount;
    }

    public int tp() {
        return tp;
    }

    /** The epoch of the newest store commit or lost write (0: none yet). */
    public long storeEpoch() {
        return storeEpoch;
    }

    /** The epoch of the last store commit or lost write of the unit with index {@code unitIndex} (0: none). */
    public long unitEpoch(int unitIndex) {
        return unitEpochs[unitIndex];
    }

    /** A unit changed (a store commit, or a write whose bytes were lost): the next store epoch becomes its epoch. */
    long stampUnit(int unitIndex) {
        long epoch = ++storeEpoch;
        unitEpochs[unitIndex] = epoch;
        return epoch;
    }

    /**
     * I2 over the ring and the index (their own checks), and the epochs' order: no unit and no index
     * entry carries an epoch newer than the store epoch, so a lookup that saw the store epoch can
     * tell every later change of a unit from the ones before it; with several stores, X1–X3 between
     * them ({@link PoolMembers}).
     */
    public void checkInvariants() {
        ring.checkInvariants();
        index.checkInvariants(ring);
        for (int unit = 0; unit < unitEpochs.length; unit++) {
            if (unitEpochs[unit] < 0 || unitEpochs[unit] > storeEpoch) {
                throw new IllegalStateException("L2 epochs: unit " + unit + " has epoch " + unitEpochs[unit]
                        + " outside [0, store epoch " + storeEpoch + "]");
            }
        }
        for (int slot = 0; slot < slotCount; slot++) {
            L2Index.Entry entry = index.atSlot(slot);
            if (entry != null && entry.version() > storeEpoch) {
                throw new IllegalStateException("L2 epochs: key " + entry.key() + " at slot " + slot + " has version "
                        + entry.version() + " after the store epoch " + storeEpoch);
            }
        }
        members.checkInvariants(this);
    }
}
