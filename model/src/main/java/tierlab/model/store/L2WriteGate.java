package tierlab.model.store;

import java.util.ArrayList;
import java.util.List;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp.Content;
import tierlab.model.io.PayloadLedger;
import tierlab.model.l2.L2Index;
import tierlab.model.policy.FrequencySketch;
import tierlab.model.store.L1Space.Slice;

/**
 * Decides when a committed unit's bytes go to L2: the write policy ({@link L2WritePolicy}) says at
 * which moment (commit, the N-th hit, the eviction from L1) and the admission filter
 * ({@link L2Admission}) whether the block is worth the write then (docs/policies.md, "L2 write
 * policies").
 *
 * <p>A unit committed but not written is <em>unwritten</em>: its key is visible in the index, its
 * only copy is its resident L1 slice (I12). It is written when its policy's moment comes and the
 * filter admits it; a unit that leaves L1 by eviction unwritten and is not written then (any policy
 * but write-back, or refused by the filter) takes its key out of the index, so no lookup can reach
 * L2 bytes that were never written. A snapshot never contains an unwritten unit ({@link Recovery}),
 * so a crash loses exactly the unwritten units and the writes still in flight, and never serves them.
 *
 * <p>With the defaults ({@code write-through}, no filter) every unit is written at commit and every
 * hook here returns at once: the decisions and the decision trace are those of the store before
 * this part existed.
 */
final class L2WriteGate extends StorePart {

    /** Sightings between two halvings of the filter, per L2 slot (Caffeine's sample size is 10 × maximum). */
    static final int SKETCH_SAMPLE_PER_SLOT = 10;

    private final L2WritePolicy writePolicy;
    private final L2Admission admission;
    /** The defaults: everything is written at commit and no hook has anything to do. */
    final boolean writesEverythingAtCommit;
    /** Sightings per block key for the filter; null without one. */
    private final FrequencySketch sketch;
    /** Per unit index: committed, resident, not written (I12). */
    private final boolean[] unwrittenByUnit;
    /** Per unit index: L1 hits since its commit, for write-after-hits. */
    private final int[] hitsByUnit;
    private int unwrittenCount;

    L2WriteGate(StoreContext ctx) {
        super(ctx);
        this.writePolicy = settings.l2WritePolicy();
        this.admission = settings.l2Admission();
        this.writesEverythingAtCommit = writePolicy.kind() == L2WritePolicy.Kind.WRITE_THROUGH && !admission.filters();
        this.sketch = !admission.filters() ? null : new FrequencySketch(slotCount,
                (long) SKETCH_SAMPLE_PER_SLOT * slotCount, admission.kind() == L2Admission.Kind.DOORKEEPER);
        this.unwrittenByUnit = writesEverythingAtCommit ? new boolean[0] : new boolean[ctx.unitCount];
        this.hitsByUnit = writesEverythingAtCommit ? new int[0] : new int[ctx.unitCount];
    }

    /** A save named {@code key} (a new block or one already stored): one sighting for the filter. */
    void sighted(BlockKey key) {
        if (sketch != null) {
            sketch.increment(sketchKey(key));
        }
    }

    /**
     * Commit of {@code slice} (published in L1, its lane committed in the index): whether its L2
     * write is issued now. When not, the unit becomes unwritten.
     */
    boolean writeAtCommit(Slice slice, BlockKey key) {
        if (writesEverythingAtCommit) {
            return true;
        }
        if (ctx.space.resident(slice.unit) != slice) {
            // Not published in L1 (only under the R11 ablation): L2 is its only possible home.
            return true;
        }
        L2Index.Entry entry = ctx.index.atSlot(slotOf(slice.unit));
        if (entry == null || !entry.key().equals(key)) {
            // The key left the index while this lane was staged (another lane's staging failed, or a
            // lost write): no lookup can reach these bytes, so they are not worth a write.
            trace.record("write-orphan-skipped", slice.unit);
            return false;
        }
        hitsByUnit[unitIndex(slice.unit)] = 0;
        if (writePolicy.kind() == L2WritePolicy.Kind.WRITE_THROUGH && admits(key)) {
            return true;
        }
        markUnwritten(slice.unit);
        count(StoreCounter.L2_WRITES_DEFERRED, 1);
        trace.record("write-deferred", slice.unit);
        return false;
    }

    /**
     * An L1 hit on {@code unit} (a lease taken on its resident slice): one sighting (counted on lane
     * 0, once per block), and the write of an unwritten unit whose moment has come.
     */
    void onHit(long unit) {
        if (writesEverythingAtCommit) {
            return;
        }
        int index = unitIndex(unit);
        L2Index.Entry entry = ctx.index.atSlot(slotOf(unit));
        if (sketch != null && entry != null && index / slotCount == 0) {
            sketch.increment(sketchKey(entry.key()));
        }
        if (!unwrittenByUnit[index]) {
            return;
        }
        int hits = ++hitsByUnit[index];
        boolean due = switch (writePolicy.kind()) {
            // Refused by the filter at commit: each later hit is a new sighting and a new chance.
            case WRITE_THROUGH -> true;
            case WRITE_AFTER_HITS -> hits >= writePolicy.hitsBeforeWrite();
            case WRITE_BACK -> false;
        };
        if (due && entry != null && admits(entry.key())) {
            clearUnwritten(index);
            count(StoreCounter.L2_WRITES_AFTER_HITS, 1);
            trace.record("write-after-hits", unit, hits);
            ctx.writes.issueWrite(new ArrayList<>(List.of(ctx.space.resident(unit))));
        }
    }

    /**
     * L1 evicts {@code slice} (a policy, headroom or trim eviction; called before it is unpublished).
     * An unwritten unit is written now (write-back, admitted) or dropped with its key.
     */
    void onEvict(Slice slice) {
        if (writesEverythingAtCommit) {
            return;
        }
        int index = unitIndex(slice.unit);
        if (!unwrittenByUnit[index]) {
            return;
        }
        clearUnwritten(index);
        L2Index.Entry entry = ctx.index.atSlot(slotOf(slice.unit));
        if (writePolicy.kind() == L2WritePolicy.Kind.WRITE_BACK && entry != null && admits(entry.key())) {
            count(StoreCounter.L2_WRITE_BACK_FLUSHES, 1);
            trace.record("write-back", slice.unit);
            // The slice keeps its memory as the write's source until the write lands (R2's rule).
            ctx.writes.issueWrite(new ArrayList<>(List.of(slice)), true);
        } else {
            dropKey(slice);
        }
    }

    /**
     * The evicted unit's bytes will never reach L2: its key leaves the index (lookups stop before
     * it), and the block's other lanes, unreachable now, leave L1 where nothing holds them.
     */
    private void dropKey(Slice evicted) {
        int slot = slotOf(evicted.unit);
        if (ctx.index.removeSlot(slot) != null) {
            count(StoreCounter.L2_UNWRITTEN_DROPPED, 1);
            trace.record("unwritten-drop", slot);
        }
        for (int lane = 0; lane < tp; lane++) {
            long unit = unitOffset(slot, lane);
            if (unit == evicted.unit) {
                continue;
            }
            clearUnwritten(unitIndex(unit));
            Slice resident = ctx.space.resident(unit);
            if (resident != null && ctx.space.isEvictable(resident)) {
                ctx.space.unpublish(resident);
            }
        }
    }

    /** The key of {@code slot} left the index (its L2 write failed): none of its lanes is to be written any more. */
    void keyDropped(int slot) {
        if (writesEverythingAtCommit) {
            return;
        }
        for (int lane = 0; lane < tp; lane++) {
            clearUnwritten(unitIndex(unitOffset(slot, lane)));
        }
    }

    /** The unit left L1 another way (its run evicted from L2, a lost write, a newer slice): nothing to write. */
    void forget(long unit) {
        if (!writesEverythingAtCommit) {
            clearUnwritten(unitIndex(unit));
        }
    }

    /**
     * Whether evicting {@code slice} writes it back first, so its memory returns only when that write
     * lands: a reservation prefers other victims.
     */
    boolean dirtyUntilWrittenBack(Slice slice) {
        return !writesEverythingAtCommit && writePolicy.kind() == L2WritePolicy.Kind.WRITE_BACK
                && unwrittenByUnit[unitIndex(slice.unit)];
    }

    boolean hasDirty() {
        return unwrittenCount > 0 && writePolicy.kind() == L2WritePolicy.Kind.WRITE_BACK;
    }

    /** Whether {@code unit} is committed and resident but not written (not on disk). */
    boolean isUnwritten(long unit) {
        return !writesEverythingAtCommit && unwrittenByUnit[unitIndex(unit)];
    }

    int unwrittenCount() {
        return unwrittenCount;
    }

    private boolean admits(BlockKey key) {
        if (sketch == null || sketch.frequency(sketchKey(key)) >= admission.minFrequency()) {
            return true;
        }
        count(StoreCounter.L2_ADMISSION_REJECTS, 1);
        trace.record("l2-admission-reject", key.hi(), key.lo());
        return false;
    }

    private void markUnwritten(long unit) {
        int index = unitIndex(unit);
        if (!unwrittenByUnit[index]) {
            unwrittenByUnit[index] = true;
            unwrittenCount++;
        }
    }

    private void clearUnwritten(int index) {
        if (unwrittenByUnit[index]) {
            unwrittenByUnit[index] = false;
            unwrittenCount--;
        }
        hitsByUnit[index] = 0;
    }

    /** The sketch's key of a block: both halves of its 128-bit hash (the sketch mixes it further). */
    private static long sketchKey(BlockKey key) {
        return key.hi() ^ Long.rotateLeft(key.lo(), 31);
    }

    /**
     * I7 for the units only L1 holds: the L1 cell of each unwritten unit holds its key's bytes.
     *
     * @return the unwritten units whose L1 bytes are not their key's
     */
    long l1Disagreements(PayloadLedger ledger) {
        long wrong = 0;
        for (int index = 0; index < unwrittenByUnit.length; index++) {
            if (!unwrittenByUnit[index]) {
                continue;
            }
            Slice slice = ctx.space.residentAt(index);
            L2Index.Entry entry = ctx.index.atSlot(index % slotCount);
            Content expected = entry == null ? null : new Content(entry.key(), index / slotCount);
            if (slice == null || expected == null || !expected.equals(ledger.l1At(slice.poolOffset))) {
                wrong++;
            }
        }
        return wrong;
    }

    /**
     * I12: an unwritten unit is resident in L1, has an index entry at its slot, and no pending write
     * reads from its slice; the count of unwritten units is right; the filter's sketch is sound.
     */
    void checkInvariants() {
        if (writesEverythingAtCommit) {
            return;
        }
        int seen = 0;
        for (int index = 0; index < unwrittenByUnit.length; index++) {
            if (!unwrittenByUnit[index]) {
                continue;
            }
            seen++;
            Slice slice = ctx.space.residentAt(index);
            if (slice == null) {
                throw new IllegalStateException("I12: unwritten unit " + index + " is not resident in L1");
            }
            if (ctx.index.atSlot(index % slotCount) == null) {
                throw new IllegalStateException("I12: unwritten unit " + index + " has no index entry at its slot");
            }
            if (slice.pendingWrites != 0) {
                throw new IllegalStateException("I12: unwritten unit " + index + " is the source of a pending write");
            }
        }
        if (seen != unwrittenCount) {
            throw new IllegalStateException("I12: " + seen + " unwritten units flagged but " + unwrittenCount + " counted");
        }
        if (sketch != null) {
            sketch.checkInvariants("I12 (L2 admission filter)");
        }
    }
}
