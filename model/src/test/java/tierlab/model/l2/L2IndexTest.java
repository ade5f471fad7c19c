package tierlab.model.l2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.geometry.ModelShape;
import tierlab.model.l2.L2Index.ClaimOutcome;
import tierlab.model.l2.L2Index.CommitOutcome;

final class L2IndexTest {

    private static final int SLOTS = 16;

    private static BlockKey key(int i) {
        return BlockKey.chain(BlockKey.ROOT, new int[] {i});
    }

    /** Keys of one prompt chain: blocks 0..n-1 of a prompt whose tokens start at {@code seed}. */
    private static BlockKey[] chain(int seed, int blocks) {
        int[] tokens = new int[blocks * 16];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = seed + i;
        }
        return BlockKey.chainOf(tokens, 16);
    }

    private final L2Ring ring = new L2Ring(SLOTS);

    /** Allocates a run of n slots and claims the chain's keys on them, parents along the chain. */
    private L2Ring.Run store(L2Index index, BlockKey[] keys) {
        L2Ring.Allocation allocation = ring.allocate(keys.length);
        for (L2Ring.Run evicted : allocation.evicted()) {
            for (int slot = evicted.firstSlot(); slot < evicted.endSlot(); slot++) {
                index.removeSlot(slot);
            }
        }
        L2Ring.Run run = allocation.run();
        for (int i = 0; i < keys.length; i++) {
            BlockKey parent = i == 0 ? BlockKey.ROOT : keys[i - 1];
            assertEquals(ClaimOutcome.CLAIMED, index.canClaim(keys[i], parent, 16));
            index.claim(keys[i], parent, run.firstSlot() + i, 16, run.runId());
        }
        index.checkInvariants(ring);
        return run;
    }

    private static void commitAll(L2Index index, BlockKey[] keys, L2Ring.Run run, long version) {
        for (int i = 0; i < keys.length; i++) {
            for (int lane = 0; lane < index.tp(); lane++) {
                index.commitLane(keys[i], run.firstSlot() + i, run.runId(), lane, version);
            }
        }
    }

    @Test
    void tpOutsideOneToThirtyIsRefusedNamingTp() {
        // With tp = 0 the all-lanes mask would be 0, so every claimed entry would count as visible.
        for (int tp : new int[] {0, -1, 31}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new L2Index(SLOTS, tp));
            assertTrue(e.getMessage().contains("tp"), e.getMessage());
        }
        assertEquals(30, new L2Index(SLOTS, 30).tp());
    }

    @Test
    void blockIsVisibleOnlyAfterEveryLaneCommits() {
        L2Index index = new L2Index(SLOTS, 2);
        BlockKey k = key(1);
        L2Ring.Run run = store(index, new BlockKey[] {k});
        int slot = run.firstSlot();
        assertNull(index.visible(k), "claimed is not visible");
        assertNotNull(index.entry(k));
        assertEquals(0, index.visibleCount());

        assertEquals(CommitOutcome.COMMITTED_LANE, index.commitLane(k, slot, run.runId(), 0, 5));
        index.checkInvariants(ring);
        assertNull(index.visible(k), "one of two lanes committed");
        assertEquals(0b01, index.entry(k).committedLaneMask());
        assertEquals(0, index.visibleCount());

        assertEquals(CommitOutcome.NOW_VISIBLE, index.commitLane(k, slot, run.runId(), 1, 3));
        index.checkInvariants(ring);
        L2Index.Entry visible = index.visible(k);
        assertNotNull(visible);
        assertEquals(k, visible.key());
        assertEquals(BlockKey.ROOT, visible.parent());
        assertEquals(slot, visible.slot());
        assertEquals(16, visible.tokenCount());
        assertEquals(run.runId(), visible.runId());
        assertEquals(5, visible.version(), "the version is the newest of the lanes'");
        assertEquals(0b11, visible.committedLaneMask());
        assertEquals(1, index.visibleCount());
        assertSame(visible, index.atSlot(slot));

        // A repeated lane commit does not make it visible twice.
        assertEquals(CommitOutcome.COMMITTED_LANE, index.commitLane(k, slot, run.runId(), 1, 9));
        assertEquals(1, index.visibleCount());
        assertEquals(9, index.visible(k).version());
        index.checkInvariants(ring);
    }

    @Test
    void laneOrderDoesNotMatter() {
        L2Index index = new L2Index(SLOTS, 2);
        BlockKey k = key(2);
        L2Ring.Run run = store(index, new BlockKey[] {k});
        assertEquals(CommitOutcome.COMMITTED_LANE, index.commitLane(k, run.firstSlot(), run.runId(), 1, 1));
        assertNull(index.visible(k));
        assertEquals(CommitOutcome.NOW_VISIBLE, index.commitLane(k, run.firstSlot(), run.runId(), 0, 1));
        assertNotNull(index.visible(k));
    }

    @Test
    void withTp1OneCommitMakesItVisible() {
        L2Index index = new L2Index(SLOTS, 1);
        BlockKey k = key(3);
        L2Ring.Run run = store(index, new BlockKey[] {k});
        assertEquals(CommitOutcome.NOW_VISIBLE, index.commitLane(k, run.firstSlot(), run.runId(), 0, 1));
        assertNotNull(index.visible(k));
    }

    @Test
    void r12AblationMakesABlockVisibleAfterItsFirstLane() {
        L2Index correct = new L2Index(SLOTS, 2, false);
        L2Index ablated = new L2Index(SLOTS, 2, true);
        BlockKey k = key(4);
        L2Ring.Run run = ring.allocate(1).run();
        correct.claim(k, BlockKey.ROOT, run.firstSlot(), 16, run.runId());
        ablated.claim(k, BlockKey.ROOT, run.firstSlot(), 16, run.runId());
        assertNull(ablated.visible(k), "claimed only: not visible even in the ablation");

        assertEquals(CommitOutcome.COMMITTED_LANE, correct.commitLane(k, run.firstSlot(), run.runId(), 0, 1));
        assertEquals(CommitOutcome.NOW_VISIBLE, ablated.commitLane(k, run.firstSlot(), run.runId(), 0, 1));
        assertNull(correct.visible(k));
        assertNotNull(ablated.visible(k), "R12: visible with one of two lanes committed");
        assertEquals(0, correct.visibleCount());
        assertEquals(1, ablated.visibleCount());
        correct.checkInvariants(ring);
        ablated.checkInvariants(ring);

        assertEquals(CommitOutcome.NOW_VISIBLE, correct.commitLane(k, run.firstSlot(), run.runId(), 1, 1));
        assertEquals(CommitOutcome.COMMITTED_LANE, ablated.commitLane(k, run.firstSlot(), run.runId(), 1, 1));
        assertEquals(1, correct.visibleCount());
        assertEquals(1, ablated.visibleCount());
    }

    @Test
    void firstWriterWinsAndConflictsAreReported() {
        L2Index index = new L2Index(SLOTS, 2);
        BlockKey parent = key(10);
        BlockKey k = BlockKey.chain(parent, new int[] {1, 2});
        assertEquals(ClaimOutcome.CLAIMED, index.canClaim(k, parent, 16));
        L2Ring.Run run = ring.allocate(1).run();
        index.claim(k, parent, run.firstSlot(), 16, run.runId());

        // Present but not yet committed: a second writer with identical metadata still skips.
        assertEquals(ClaimOutcome.ALREADY_PRESENT, index.canClaim(k, parent, 16));
        commitAll(index, new BlockKey[] {k}, run, 1);
        assertEquals(ClaimOutcome.ALREADY_PRESENT, index.canClaim(k, parent, 16));
        assertEquals(ClaimOutcome.CONFLICT, index.canClaim(k, BlockKey.ROOT, 16), "different parent");
        assertEquals(ClaimOutcome.CONFLICT, index.canClaim(k, parent, 8), "different token count");
        assertEquals(ClaimOutcome.CONFLICT, index.canClaim(k, key(11), 8), "both different");
        assertEquals(ClaimOutcome.CLAIMED, index.canClaim(key(12), parent, 16), "another key is free");

        // Claiming over a present key (or onto a held slot) is refused, never an overwrite.
        L2Ring.Run other = ring.allocate(1).run();
        assertThrows(IllegalStateException.class, () -> index.claim(k, parent, other.firstSlot(), 16, other.runId()));
        assertThrows(IllegalStateException.class, () -> index.claim(key(12), parent, run.firstSlot(), 16, run.runId()));
        assertEquals(run.firstSlot(), index.visible(k).slot());
        assertEquals(1, index.size());
        index.checkInvariants(ring);
    }

    @Test
    void lateCommitsAreIgnored() {
        L2Index index = new L2Index(SLOTS, 2);
        BlockKey k = key(20);
        L2Ring.Run run = store(index, new BlockKey[] {k});
        int slot = run.firstSlot();
        assertEquals(CommitOutcome.LATE_IGNORED, index.commitLane(k, slot, run.runId() + 1, 0, 1), "different run id");
        assertEquals(CommitOutcome.LATE_IGNORED, index.commitLane(key(21), slot, run.runId(), 0, 1), "different key at the slot");
        assertEquals(CommitOutcome.LATE_IGNORED, index.commitLane(k, slot + 1, run.runId(), 0, 1), "empty slot");
        assertEquals(0, index.entry(k).committedLaneMask(), "nothing was recorded");

        index.commitLane(k, slot, run.runId(), 0, 1);
        assertNotNull(index.removeSlot(slot));
        assertEquals(CommitOutcome.LATE_IGNORED, index.commitLane(k, slot, run.runId(), 1, 1), "removed slot");
        assertNull(index.visible(k));
        assertNull(index.entry(k));
        assertEquals(0, index.visibleCount());
    }

    @Test
    void lateCommitForAReallocatedSlotDoesNotTouchTheNewOwner() {
        L2Ring small = new L2Ring(2);
        L2Index index = new L2Index(2, 2);
        BlockKey old = key(30);
        L2Ring.Run oldRun = small.allocate(2).run();
        index.claim(old, BlockKey.ROOT, 0, 16, oldRun.runId());
        index.commitLane(old, 0, oldRun.runId(), 0, 1);

        L2Ring.Allocation again = small.allocate(2);
        assertEquals(List.of(oldRun), again.evicted());
        index.removeSlot(0);
        BlockKey fresh = key(31);
        index.claim(fresh, BlockKey.ROOT, 0, 16, again.run().runId());
        index.checkInvariants(small);

        assertEquals(CommitOutcome.LATE_IGNORED, index.commitLane(old, 0, oldRun.runId(), 1, 1));
        assertEquals(0, index.entry(fresh).committedLaneMask());
        assertNull(index.entry(old));
        index.checkInvariants(small);
    }

    @Test
    void removeSlotForgetsTheKey() {
        L2Index index = new L2Index(SLOTS, 2);
        BlockKey[] keys = chain(100, 3);
        L2Ring.Run run = store(index, keys);
        commitAll(index, keys, run, 1);
        assertEquals(3, index.visibleCount());
        assertEquals(3, index.size());

        L2Index.Entry removed = index.removeSlot(run.firstSlot() + 1);
        assertNotNull(removed);
        assertEquals(keys[1], removed.key());
        assertNull(index.visible(keys[1]));
        assertNull(index.entry(keys[1]));
        assertNull(index.atSlot(run.firstSlot() + 1));
        assertEquals(2, index.visibleCount());
        assertEquals(2, index.size());
        assertNull(index.removeSlot(run.firstSlot() + 1), "already empty");
        assertEquals(ClaimOutcome.CLAIMED, index.canClaim(keys[1], keys[0], 16), "the key may be stored again");

        // Removing a claimed-but-invisible entry does not change the visible count.
        BlockKey pending = key(40);
        L2Ring.Run pendingRun = store(index, new BlockKey[] {pending});
        index.commitLane(pending, pendingRun.firstSlot(), pendingRun.runId(), 0, 1);
        assertNotNull(index.removeSlot(pendingRun.firstSlot()));
        assertEquals(2, index.visibleCount());
        index.checkInvariants(ring);
    }

    @Test
    void deadSlotsAreCommittedDescendantsOfARemovedKey() {
        L2Index index = new L2Index(SLOTS, 2);
        BlockKey[] keys = chain(200, 3); // parent, child, grandchild
        L2Ring.Run run = store(index, keys);
        commitAll(index, keys, run, 1);
        assertEquals(0, index.deadSlotCount());

        index.removeSlot(run.firstSlot());
        assertEquals(2, index.deadSlotCount(), "the child and the grandchild are unreachable");
        assertNotNull(index.visible(keys[2]), "dead keys stay in the index until the ring reclaims them");

        // Re-claimed on a new slot but only one lane committed: still absent to lookups.
        L2Ring.Run again = ring.allocate(1).run();
        index.claim(keys[0], BlockKey.ROOT, again.firstSlot(), 16, again.runId());
        index.commitLane(keys[0], again.firstSlot(), again.runId(), 0, 2);
        assertEquals(2, index.deadSlotCount());
        index.commitLane(keys[0], again.firstSlot(), again.runId(), 1, 2);
        assertEquals(0, index.deadSlotCount(), "the parent is back, so the chain is reachable again");
        index.checkInvariants(ring);
    }

    @Test
    void deadSlotCountIgnoresUncommittedEntriesAndCountsEachDeadSlotOnce() {
        L2Index index = new L2Index(SLOTS, 1);
        BlockKey[] keys = chain(300, 5);
        L2Ring.Run run = store(index, keys);
        // Commit all but the last block.
        for (int i = 0; i < 4; i++) {
            index.commitLane(keys[i], run.firstSlot() + i, run.runId(), 0, 1);
        }
        index.removeSlot(run.firstSlot() + 1);
        assertEquals(2, index.deadSlotCount(), "blocks 2 and 3; block 4 is not committed, block 0 is reachable");
        assertEquals(2, index.deadSlotCount(), "computing it twice gives the same answer");
        index.removeSlot(run.firstSlot());
        assertEquals(2, index.deadSlotCount());
        index.commitLane(keys[4], run.firstSlot() + 4, run.runId(), 0, 1);
        assertEquals(3, index.deadSlotCount());
    }

    @Test
    void snapshotRoundTripGivesTheSameVisibleAnswers() {
        int tp = 2;
        L2Index index = new L2Index(SLOTS, tp);
        List<BlockKey> allKeys = new ArrayList<>();
        BlockKey[] a = chain(1000, 5);
        BlockKey[] b = chain(2000, 4);
        BlockKey[] c = chain(3000, 6); // forces eviction of a
        BlockKey[] d = chain(4000, 3); // half committed
        BlockKey[] e = chain(5000, 2); // claimed only
        for (BlockKey[] keys : List.of(a, b, c, d, e)) {
            allKeys.addAll(List.of(keys));
        }
        commitAll(index, a, store(index, a), 1);
        commitAll(index, b, store(index, b), 2);
        L2Ring.Run cRun = store(index, c);
        commitAll(index, c, cRun, 3);
        L2Ring.Run dRun = store(index, d);
        for (int i = 0; i < d.length; i++) {
            index.commitLane(d[i], dRun.firstSlot() + i, dRun.runId(), i % 2, 4);
        }
        L2Ring.Run eRun = store(index, e);
        index.checkInvariants(ring);
        assertNull(index.visible(a[0]), "a was evicted by the ring");

        Geometry geometry = new Geometry(ModelShape.QWEN3_8B, 16, tp);
        List<L2Ring.Run> runs = new ArrayList<>(ring.runs());
        List<L2Index.EntryRecord> records = new ArrayList<>(index.visibleRecords());
        L2Snapshot snapshot = new L2Snapshot(ring.slotCount(), geometry.laneBytes(), tp, ring.head(), ring.nextRunId(), runs, records);
        runs.clear();
        records.clear();
        assertTrue(!snapshot.runsOldestFirst().isEmpty() && !snapshot.entries().isEmpty(), "the snapshot copied its lists");
        assertThrows(UnsupportedOperationException.class, () -> snapshot.entries().clear());

        // Records are the visible entries, in slot order.
        assertEquals(index.visibleCount(), snapshot.entries().size());
        for (int i = 1; i < snapshot.entries().size(); i++) {
            assertTrue(snapshot.entries().get(i - 1).slot() < snapshot.entries().get(i).slot());
        }

        L2Ring restoredRing = L2Ring.restore(snapshot.slotCount(), snapshot.runsOldestFirst(), snapshot.head(), snapshot.nextRunId());
        L2Index restored = new L2Index(snapshot.slotCount(), snapshot.tp());
        for (L2Index.EntryRecord record : snapshot.entries()) {
            restored.restoreVisible(record);
        }
        restored.checkInvariants(restoredRing);
        assertEquals(index.visibleCount(), restored.visibleCount());
        assertEquals(index.visibleRecords(), restored.visibleRecords());
        for (BlockKey k : allKeys) {
            L2Index.Entry before = index.visible(k);
            L2Index.Entry after = restored.visible(k);
            assertEquals(before == null, after == null, "visible(" + k + ")");
            if (before != null) {
                assertEquals(before.slot(), after.slot());
                assertEquals(before.parent(), after.parent());
                assertEquals(before.tokenCount(), after.tokenCount());
                assertEquals(before.runId(), after.runId());
                assertEquals(before.version(), after.version());
                assertEquals(0b11, after.committedLaneMask());
            }
        }
        // Writes in flight at shutdown are lost: their keys are absent and may be stored again.
        assertNull(restored.entry(d[0]));
        assertNull(restored.entry(e[0]));
        assertEquals(ClaimOutcome.CLAIMED, restored.canClaim(e[0], BlockKey.ROOT, 16));
        assertEquals(eRun.runId(), restoredRing.ownerOf(eRun.firstSlot()), "their slots stay with the ring");
        assertEquals(index.deadSlotCount(), restored.deadSlotCount());
        assertEquals(ClaimOutcome.ALREADY_PRESENT, restored.canClaim(c[1], c[0], 16));
        assertEquals(cRun.firstSlot() + 1, restored.visible(c[1]).slot());
    }

    @Test
    void checkInvariantsFailsI2WhenTheRingDoesNotOwnTheSlot() {
        L2Index index = new L2Index(SLOTS, 2);
        L2Ring.Run run = ring.allocate(2).run();
        index.claim(key(50), BlockKey.ROOT, run.firstSlot(), 16, run.runId());
        index.checkInvariants(ring);
        // A run id the ring never issued.
        index.claim(key(51), BlockKey.ROOT, run.firstSlot() + 1, 16, 999);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> index.checkInvariants(ring));
        assertTrue(e.getMessage().contains("I2"), e.getMessage());
    }

    @Test
    void checkInvariantsFailsI2WhenTheRingEvictedTheRunButTheIndexKeptIt() {
        L2Ring small = new L2Ring(4);
        L2Index index = new L2Index(4, 1);
        L2Ring.Run run = small.allocate(4).run();
        index.claim(key(60), BlockKey.ROOT, 0, 16, run.runId());
        index.commitLane(key(60), 0, run.runId(), 0, 1);
        index.checkInvariants(small);
        small.allocate(2); // evicts the run; the caller "forgets" to remove its slots
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> index.checkInvariants(small));
        assertTrue(e.getMessage().contains("I2"), e.getMessage());
    }

    @Test
    void randomStoresAndEvictionsKeepIndexAndRingInAgreement() {
        for (long seed = 1; seed <= 10; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            L2Ring ring = new L2Ring(32);
            L2Index index = new L2Index(32, 2);
            // Reference: key → (slot, run, lanes committed).
            record Ref(int slot, long runId, int mask, BlockKey parent) {}
            Map<BlockKey, Ref> reference = new HashMap<>();
            List<long[]> pendingCommits = new ArrayList<>(); // {promptSeed, block, slot, runId, lane}
            Map<Long, BlockKey[]> prompts = new HashMap<>();
            int lateCommits = 0;
            int stepsWithDeadSlots = 0;
            for (int step = 0; step < 600; step++) {
                String where = "seed " + seed + " step " + step;
                if (pendingCommits.isEmpty() || random.nextInt(3) == 0) {
                    long promptSeed = random.nextInt(12);
                    BlockKey[] keys = prompts.computeIfAbsent(promptSeed, s -> chain((int) (s * 10_000), 8));
                    int blocks = 1 + random.nextInt(keys.length);
                    // Store the blocks that are absent (a dead suffix may still be present).
                    List<Integer> absent = new ArrayList<>();
                    for (int i = 0; i < blocks; i++) {
                        BlockKey parent = i == 0 ? BlockKey.ROOT : keys[i - 1];
                        if (index.entry(keys[i]) == null) {
                            assertEquals(ClaimOutcome.CLAIMED, index.canClaim(keys[i], parent, 16), where);
                            absent.add(i);
                        } else {
                            assertEquals(ClaimOutcome.ALREADY_PRESENT, index.canClaim(keys[i], parent, 16), where);
                            assertEquals(ClaimOutcome.CONFLICT, index.canClaim(keys[i], parent, 8), where);
                        }
                    }
                    if (absent.isEmpty()) {
                        continue;
                    }
                    L2Ring.Allocation allocation = ring.allocate(absent.size());
                    for (L2Ring.Run evicted : allocation.evicted()) {
                        for (int slot = evicted.firstSlot(); slot < evicted.endSlot(); slot++) {
                            L2Index.Entry removed = index.removeSlot(slot);
                            if (removed != null) {
                                assertTrue(reference.remove(removed.key()) != null, where);
                            }
                        }
                    }
                    L2Ring.Run run = allocation.run();
                    for (int j = 0; j < absent.size(); j++) {
                        int i = absent.get(j);
                        int slot = run.firstSlot() + j;
                        index.claim(keys[i], i == 0 ? BlockKey.ROOT : keys[i - 1], slot, 16, run.runId());
                        reference.put(keys[i], new Ref(slot, run.runId(), 0, i == 0 ? BlockKey.ROOT : keys[i - 1]));
                        for (int lane = 0; lane < 2; lane++) {
                            pendingCommits.add(new long[] {promptSeed, i, slot, run.runId(), lane});
                        }
                    }
                } else {
                    long[] commit = pendingCommits.remove(random.nextInt(pendingCommits.size()));
                    BlockKey k = prompts.get(commit[0])[(int) commit[1]];
                    int slot = (int) commit[2];
                    long runId = commit[3];
                    int lane = (int) commit[4];
                    Ref ref = reference.get(k);
                    CommitOutcome expected;
                    if (ref == null || ref.slot() != slot || ref.runId() != runId) {
                        expected = CommitOutcome.LATE_IGNORED;
                        lateCommits++;
                    } else {
                        int mask = ref.mask() | (1 << lane);
                        expected = mask == 0b11 && ref.mask() != 0b11 ? CommitOutcome.NOW_VISIBLE : CommitOutcome.COMMITTED_LANE;
                        reference.put(k, new Ref(slot, runId, mask, ref.parent()));
                    }
                    assertEquals(expected, index.commitLane(k, slot, runId, lane, step), where);
                }
                ring.checkInvariants();
                index.checkInvariants(ring);
                assertEquals(reference.size(), index.size(), where);
                long visible = 0;
                for (Map.Entry<BlockKey, Ref> e : reference.entrySet()) {
                    boolean shouldBeVisible = e.getValue().mask() == 0b11;
                    visible += shouldBeVisible ? 1 : 0;
                    assertEquals(shouldBeVisible, index.visible(e.getKey()) != null, where);
                }
                assertEquals(visible, index.visibleCount(), where);
                long dead = 0;
                for (Map.Entry<BlockKey, Ref> e : reference.entrySet()) {
                    if (e.getValue().mask() != 0b11) {
                        continue;
                    }
                    BlockKey parent = e.getValue().parent();
                    while (!parent.equals(BlockKey.ROOT) && reference.containsKey(parent) && reference.get(parent).mask() == 0b11) {
                        parent = reference.get(parent).parent();
                    }
                    dead += parent.equals(BlockKey.ROOT) ? 0 : 1;
                }
                assertEquals(dead, index.deadSlotCount(), where);
                stepsWithDeadSlots += dead > 0 ? 1 : 0;
            }
            assertTrue(lateCommits > 0, "seed " + seed + " exercised late commits");
            assertTrue(stepsWithDeadSlots > 0, "seed " + seed + " exercised dead slots");
        }
    }
}
