package tierlab.model.store;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tierlab.model.KnownBug;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.IoOp.Content;
import tierlab.model.l1.L1Pool;
import tierlab.model.l2.L2Index;
import tierlab.model.l2.L2Ring;
import tierlab.model.l2.L2Snapshot;
import tierlab.model.policy.Policies;
import tierlab.model.policy.PolicyOptions;
import tierlab.model.policy.ReplacementPolicy;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.LookupResult.LeaseStatus;
import tierlab.model.trace.DecisionTrace;
import tierlab.model.util.LongMap;
import tierlab.model.util.OffsetTable;

/**
 * The control plane of the tiered KV store: which bytes live where, who may touch them, and in
 * what order (docs/tiered-store.md sections 2–5).
 *
 * <p>The store never blocks, never reads a clock and never does I/O. Callers drive it with
 * method calls and {@link IoCompletion}s; it answers with values, with {@link IoOp} records in
 * its outbox ({@link #drainOps()}) and with {@link StoreEvent}s ({@link #drainEvents()}).
 * Anything that must wait (a promotion for L1 space, a store for a lease, a write for the write
 * before it) is kept as state here and resumed by the event that releases it.
 *
 * <p>Granularity: every L1 entry, lease range and I/O is a multiple of one <em>unit</em>, the
 * lane of one block in one L2 slot ({@link Geometry} draws the layout). A unit is named by its
 * L2 byte offset, which is also the replacement policy's key.
 *
 * <p>Slice roles (section 3): resident, reserved, pending write, leased, borrowed. A slice
 * returns to the pool only when it has none left.
 */
public final class TieredStore {

    // ------------------------------------------------------------------------------------------
    // Internal state records. Package-private classes: the store is their only writer.
    // ------------------------------------------------------------------------------------------

    /** Byte accounting category of a slice, by its strongest role (invariant I1). */
    enum Category { RESIDENT, RESERVED, LEASED_ONLY, BORROWED_ONLY, PENDING_WRITE_ONLY, NONE }

    static final class Slice {
        final long poolOffset;
        final long unit;
        boolean resident;
        boolean headroom;
        /** Neighbours on the headroom queue (toward the oldest and the newest entry) while {@link #headroom}. */
        Slice headroomOlder;
        Slice headroomNewer;
        boolean reserved;
        int pendingWrites;
        int leaseRefs;
        int borrowRefs;
        boolean freed;
        Content content;
        Category category = Category.NONE;

        Slice(long poolOffset, long unit) {
            this.poolOffset = poolOffset;
            this.unit = unit;
        }

        Category strongestRole() {
            if (resident) return Category.RESIDENT;
            if (reserved) return Category.RESERVED;
            if (leaseRefs > 0) return Category.LEASED_ONLY;
            if (borrowRefs > 0) return Category.BORROWED_ONLY;
            if (pendingWrites > 0) return Category.PENDING_WRITE_ONLY;
            return Category.NONE;
        }
    }

    enum UnitState { HELD, PROMOTING, FAILED, RELEASED }

    static final class LeaseUnit {
        final Lease lease;
        final long unit;
        final Content expected;
        final int blockIndex;
        final long epochAtLookup;
        /** The bytes came from L2 through a promotion (else they were resident in L1). */
        boolean viaPromotion;
        UnitState state;
        Slice slice;
        Promotion promotion;

        LeaseUnit(Lease lease, long unit, Content expected, int blockIndex, long epochAtLookup) {
            this.lease = lease;
            this.unit = unit;
            this.expected = expected;
            this.blockIndex = blockIndex;
            this.epochAtLookup = epochAtLookup;
        }
    }

    static final class Lease {
        final long leaseId;
        final long requestId;
        final List<LeaseUnit> units = new ArrayList<>();
        int promotingUnits;
        int failedUnits;
        boolean acquireReported;
        boolean releaseAll;
        Load activeLoad;

        Lease(long leaseId, long requestId) {
            this.leaseId = leaseId;
            this.requestId = requestId;
        }
    }

    enum PromotionState { WAIT_SPACE, WAIT_WRITE, READY, READING }

    static final class Promotion {
        final long promotionId;
        final long unit;
        final List<LeaseUnit> waiters = new ArrayList<>();
        PromotionState state = PromotionState.WAIT_SPACE;
        /** Stores with a newer epoch than this make the read stale: min(epoch at reservation, waiters' lookups). */
        long epochBaseline = Long.MAX_VALUE;
        /** Ablation R7: the cancelled read keeps its reservation when it lands. */
        boolean leakOnCompletion;
        Slice slice;
        ReadBatch batch;
        boolean cancelled;
        boolean countedWait;

        Promotion(long promotionId, long unit) {
            this.promotionId = promotionId;
            this.unit = unit;
        }
    }

    static final class ReadBatch {
        final long batchId;
        int outstanding;

        ReadBatch(long batchId) {
            this.batchId = batchId;
        }
    }

    static final class WriteOp {
        final long l1Offset;
        final long l2Offset;
        final List<Slice> sources;
        final List<Long> units;
        final List<WriteOp> dependents = new ArrayList<>();
        int waitingOn;
        long ticket;

        /** The store epoch of each unit's bytes, to tell whether a failed write was the newest. */
        final long[] epochs;

        WriteOp(long l1Offset, long l2Offset, List<Slice> sources, List<Long> units) {
            this.l1Offset = l1Offset;
            this.l2Offset = l2Offset;
            this.sources = sources;
            this.units = units;
            this.epochs = new long[units.size()];
        }
    }

    static final class Load {
        final Lease lease;
        final List<Slice> borrowed;
        boolean borrowsReturned;

        Load(Lease lease, List<Slice> borrowed) {
            this.lease = lease;
            this.borrowed = borrowed;
        }
    }

    static final class StoreJob {
        final long requestId;
        int batchesTotal;
        int batchesStaged;
        int batchesFinished;
        int copiesInFlight;
        boolean cancelled;
        boolean stagedReported;

        StoreJob(long requestId) {
            this.requestId = requestId;
        }
    }

    enum BatchState { WAIT_LEASES, RESERVE, STAGE, COPYING, WAIT_LEASES_AFTER_COPY, DONE }

    static final class StoreBatch {
        final StoreJob job;
        final int lane;
        final long runId;
        final List<Integer> slots;
        final List<BlockKey> keys;
        final List<Integer> positions;
        final List<Long> gpuBlockIds;
        BatchState state = BatchState.WAIT_LEASES;
        final List<Slice> slices = new ArrayList<>();
        boolean countedLeaseWait;
        boolean countedReservationWait;

        StoreBatch(StoreJob job, int lane, long runId, List<Integer> slots, List<BlockKey> keys,
                   List<Integer> positions, List<Long> gpuBlockIds) {
            this.job = job;
            this.lane = lane;
            this.runId = runId;
            this.slots = slots;
            this.keys = keys;
            this.positions = positions;
            this.gpuBlockIds = gpuBlockIds;
        }

        int size() {
            return slots.size();
        }
    }

    /** The result of {@link #acquire}: the lease is ready, is being promoted, or must wait for admission. */
    public enum AcquireOutcome { READY, PROMOTING, ADMISSION_WAIT, NOTHING_TO_ACQUIRE }

    /** The result of {@link #load}. */
    public enum LoadOutcome { STARTED, NO_LEASE, LEASE_NOT_READY, ALREADY_LOADING }

    /** The result of {@link #enqueueSave}: how many blocks it will store. */
    public record SaveOutcome(int blocksQueued, int blocksAlreadyPresent, int blocksConflicting) {}

    // ------------------------------------------------------------------------------------------

    private final StoreSettings settings;
    private final Geometry geometry;
    private final long laneBytes;
    private final int tp;
    private final int slotCount;
    private final L1Pool pool;
    private final L2Ring ring;
    private final L2Index index;
    private final ReplacementPolicy policy;
    private final DecisionTrace trace;
    private final long[] counters = new long[StoreCounter.values().length];

    private final ArrayDeque<IoOp> outbox = new ArrayDeque<>();
    private final ArrayDeque<StoreEvent> events = new ArrayDeque<>();
    private long nextTicket = 1;
    private long nextId = 1;
    /** In-flight work by ticket; looked up on every completion, iterated only by checks that decide nothing. */
    private final LongMap<Object> inflightByTicket = new LongMap<>();

    /** Every live slice by pool offset, for invariant checks and accounting. */
    // Looked up by offset on every allocation and free; ordered only in checkInvariants, which sorts.
    private final OffsetTable<Slice> slicesByPoolOffset;
    private final boolean[] bugsOn;
    /** Bytes of live slices by {@link Category} ordinal (I1), updated on every role change. */
    private final long[] bytesByCategory = new long[Category.values().length];
    /** The L1 index: unit → resident slice. */
    private final DenseUnitMap<Slice> residentByUnit;
    /**
     * Resident slices inserted as headroom entries, oldest first; evicted before policy victims.
     * An intrusive list through the slices: entries join at the newest end and leave from anywhere
     * (eviction, an access that makes them ordinary) in constant time and without allocation.
     */
    private Slice headroomOldest;
    private Slice headroomNewest;
    private int headroomCount;

    private final TreeMap<Long, Lease> leasesById = new TreeMap<>();
    private final LongMap<Lease> leaseByRequest = new LongMap<>();
    /** How many unreleased lease ranges cover each unit: a store overlapping any of them waits. */
    private final int[] leasedUnitCounts;
    private long leasedRemainingBytes;

    private final DenseUnitMap<Promotion> promotionByUnit;
    private final ArrayDeque<Promotion> promotionsWaitingForSpace = new ArrayDeque<>();
    /** By unit: promotions that read a range only after its pending writes land. */
    private final DenseUnitMap<List<Promotion>> promotionsWaitingForWrite;
    private final List<Promotion> readyReads = new ArrayList<>();

    /**
     * By unit: writes of the range not yet landed, oldest first (a later write chains on the earlier
     * one). Dense by unit index: L2 offsets, multiples of a large power of two, pile up in a few
     * buckets of a hash map.
     */
    private final DenseUnitMap<ArrayDeque<WriteOp>> pendingWritesByUnit;
    private long storeEpoch;
    private final long[] lastStoreEpochByUnit;
    /**
     * Per unit index, the value of {@link #residencyGains} when the unit last gained L1 content
     * (was published, or had its content set). With {@link L2Index#removals()} it tells whether a
     * {@link MixedOrL2Witness} still holds: see {@link #mixedOrL2Witness}.
     */
    private final long[] residencyGainByUnit;
    private long residencyGains;
    /**
     * Per unit index, how many witnesses a caller has asked to {@link #watch}; a gain on a watched
     * unit bumps {@link #watchedResidencyGains}, so a caller holding many witnesses can tell in
     * constant time that none of them can have broken.
     */
    private final int[] watchersByUnit;
    private long watchedResidencyGains;

    private final ArrayDeque<StoreBatch> storeQueue = new ArrayDeque<>();
    /** Every L2 allocation in order, so a crash can tell which slots changed after a snapshot. */
    private final List<L2Ring.Run> allocationJournal = new ArrayList<>();
    private final List<StoreBatch> storesWaitingForLeasesAfterCopy = new ArrayList<>();
    private final LongMap<List<StoreJob>> jobsByRequest = new LongMap<>();
    private int stagingInUse;

    public TieredStore(StoreSettings settings) {
        this(settings, new DecisionTrace());
    }

    public TieredStore(StoreSettings settings, DecisionTrace trace) {
        this(settings, trace, null);
    }

    private TieredStore(StoreSettings settings, DecisionTrace trace, L2Snapshot snapshot) {
        this.settings = settings;
        this.geometry = settings.geometry();
        this.laneBytes = geometry.laneBytes();
        this.tp = geometry.tp();
        this.slotCount = Math.toIntExact(Math.min(Integer.MAX_VALUE, settings.slotCount()));
        this.pool = new L1Pool(settings.l1CapacityBytes());
        // Slices start at lane multiples of the pool whenever a lane is a whole number of pages.
        this.slicesByPoolOffset = new OffsetTable<>(laneBytes);
        long[] futureUnits = settings.futureReferences();
        long[] futureKeys = futureUnits == null ? null : new long[futureUnits.length];
        for (int i = 0; futureKeys != null && i < futureUnits.length; i++) {
            futureKeys[i] = unitIndex(futureUnits[i]);
        }
        this.policy = Policies.create(settings.policy(), new PolicyOptions(
                Math.max(1, settings.l1CapacityBytes() / laneBytes), settings.mruInterval(), futureKeys));
        this.trace = trace;
        this.bugsOn = new boolean[KnownBug.values().length];
        for (KnownBug bug : KnownBug.values()) {
            bugsOn[bug.ordinal()] = settings.has(bug);
        }
        if (snapshot == null) {
            this.ring = new L2Ring(slotCount);
            this.index = new L2Index(slotCount, tp, hasBug(KnownBug.R12_VISIBLE_BEFORE_ALL_LANES));
        } else {
            this.ring = L2Ring.restore(slotCount, snapshot.runsOldestFirst(), snapshot.head(), snapshot.nextRunId());
            this.index = new L2Index(slotCount, tp, hasBug(KnownBug.R12_VISIBLE_BEFORE_ALL_LANES));
            for (L2Index.EntryRecord record : snapshot.entries()) {
                index.restoreVisible(record);
                storeEpoch = Math.max(storeEpoch, record.version());
            }
        }
        int unitCount = Math.toIntExact((long) slotCount * tp);
        this.residentByUnit = new DenseUnitMap<>(laneBytes, unitCount);
        this.promotionByUnit = new DenseUnitMap<>(laneBytes, unitCount);
        this.promotionsWaitingForWrite = new DenseUnitMap<>(laneBytes, unitCount);
        this.pendingWritesByUnit = new DenseUnitMap<>(laneBytes, unitCount);
        this.leasedUnitCounts = new int[unitCount];
        this.lastStoreEpochByUnit = new long[unitCount];
        this.residencyGainByUnit = new long[unitCount];
        this.watchersByUnit = new int[unitCount];
    }

    /**
     * Whether an ablation switch is on; asked on hot paths (every role change), so the answers are
     * read once from the settings into an array by ordinal.
     */
    private boolean hasBug(KnownBug bug) {
        return bugsOn[bug.ordinal()];
    }

    /**
     * A unit's index ({@code lane × slotCount + slot}) from its byte offset. It is also the
     * replacement policy's key of the unit: indexes are small and dense, so the policy's key table
     * is a plain array, and the map is monotonic, so any order the policy sees among keys is the
     * offsets' order.
     */
    private int unitIndex(long unit) {
        return (int) (unit / laneBytes);
    }


    /**
     * Builds a store whose L2 index and ring come from a snapshot taken by {@link #snapshot()}. A
     * snapshot of a different geometry or capacity is refused with a message naming the mismatch.
     */
    public static TieredStore restore(StoreSettings settings, L2Snapshot snapshot, DecisionTrace trace) {
        if (snapshot.slotCount() != settings.slotCount() || snapshot.laneBytes() != settings.geometry().laneBytes()
                || snapshot.tp() != settings.geometry().tp()) {
            throw new IllegalArgumentException("L2 index snapshot: it is for " + snapshot.slotCount() + " slots of "
                    + snapshot.laneBytes() + " B lanes with tp=" + snapshot.tp() + ", but the store has "
                    + settings.slotCount() + " slots of " + settings.geometry().laneBytes() + " B with tp="
                    + settings.geometry().tp());
        }
        return new TieredStore(settings, trace, snapshot);
    }

    /**
     * Recovery after a crash: the index and ring from the last snapshot, minus every entry on a
     * slot that was allocated after it (the journal of allocations since the snapshot says which):
     * those slots may hold newer bytes than the snapshot's keys, so their keys are dropped rather
     * than trusted. A real deployment appends each allocation to a small journal beside the index;
     * that append is what {@link #allocationsSince} stands for.
     */
    public static TieredStore recover(StoreSettings settings, L2Snapshot snapshot, List<L2Ring.Run> allocatedSince,
                                      DecisionTrace trace) {
        TieredStore store = restore(settings, snapshot, trace);
        for (L2Ring.Run run : allocatedSince) {
            for (int slot = run.firstSlot(); slot < run.endSlot(); slot++) {
                if (store.index.removeSlot(slot) != null) {
                    store.count(StoreCounter.L2_KEYS_LOST, 1);
                }
            }
        }
        store.trace.record("recover", snapshot.nextRunId(), allocatedSince.size());
        return store;
    }

    /** Runs allocated with an id at or after {@code firstRunId}, oldest first: the allocation journal. */
    public List<L2Ring.Run> allocationsSince(long firstRunId) {
        List<L2Ring.Run> since = new ArrayList<>();
        for (L2Ring.Run run : allocationJournal) {
            if (run.runId() >= firstRunId) {
                since.add(run);
            }
        }
        return since;
    }

    /** The L2 index and ring as data; only committed keys are kept. */
    public L2Snapshot snapshot() {
        // A key whose L2 write has not landed yet is not on disk: a snapshot that kept it would
        // point a restarted store at bytes that were never written.
        List<L2Index.EntryRecord> durable = new ArrayList<>();
        for (L2Index.EntryRecord record : index.visibleRecords()) {
            boolean written = true;
            for (int lane = 0; lane < tp && written; lane++) {
                written = !pendingWritesByUnit.containsKey(unitOffset(record.slot(), lane));
            }
            if (written) {
                durable.add(record);
            }
        }
        return new L2Snapshot(slotCount, laneBytes, tp, ring.head(), ring.nextRunId(), ring.runs(), durable);
    }

    // ------------------------------------------------------------------------------------------
    // Geometry helpers
    // ------------------------------------------------------------------------------------------

    public long unitOffset(int slot, int lane) {
        return ((long) lane * slotCount + slot) * laneBytes;
    }

    public int slotOf(long unit) {
        return (int) ((unit / laneBytes) % slotCount);
    }

    public int laneOf(long unit) {
        return (int) ((unit / laneBytes) / slotCount);
    }

    // ------------------------------------------------------------------------------------------
    // Lookup and leases
    // ------------------------------------------------------------------------------------------

    /**
     * Walks the request's chain from its first uncomputed block over committed keys, classifies
     * the hit and, for an L1 hit, takes the lease in the same step (section 4).
     *
     * @param chain          the prompt's full-block keys, block 0 first
     * @param computedTokens tokens the engine already has (the walk starts after them)
     * @param promptTokens   prompt length; a hit covering the whole prompt is capped one token short
     */
    public LookupResult lookup(long requestId, List<BlockKey> chain, long computedTokens, long promptTokens, long nowNs) {
        count(StoreCounter.LOOKUPS, 1);
        int blockTokens = geometry.blockTokens();
        int startBlock = (int) (computedTokens / blockTokens);
        int hitBlocks = 0;
        long hitTokens = 0;
        // The walk keeps the entries it found so each key is hashed once.
        List<L2Index.Entry> found = new ArrayList<>(Math.max(0, chain.size() - startBlock));
        if (computedTokens % blockTokens == 0 && promptTokens > 0) {
            L2Index.Entry entry;
            while (startBlock + found.size() < chain.size()
                    && (entry = index.visible(chain.get(startBlock + found.size()))) != null) {
                found.add(entry);
            }
            // A lease pins every byte it loads from in L1, so a hit is capped to what L1 can hold at
            // once; without the cap a prefix longer than L1 could never pass lease admission.
            long maxLeaseBlocks = settings.l1CapacityBytes() / laneBytes / tp;
            long usableBlocks = Math.min(found.size(), maxLeaseBlocks);
            long hitEnd = Math.min((startBlock + usableBlocks) * blockTokens, promptTokens - 1);
            hitTokens = Math.max(0, hitEnd - computedTokens);
            hitBlocks = (int) Math.ceilDiv(hitTokens, blockTokens);
        }
        int[] slots = new int[hitBlocks];
        BlockKey[] keys = new BlockKey[hitBlocks];
        int resident = 0;
        for (int b = 0; b < hitBlocks; b++) {
            L2Index.Entry entry = found.get(b);
            slots[b] = entry.slot();
            keys[b] = entry.key();
            for (int lane = 0; lane < tp; lane++) {
                Slice slice = residentByUnit.getAt(lane * slotCount + entry.slot());
                if (slice != null && holds(slice, entry.key(), lane)) {
                    resident++;
                }
            }
        }
        List<Long> units = new HitRanges.Units(slots, tp, slotCount, laneBytes);
        List<Content> expected = new HitRanges.Expected(keys, tp);
        HitClass hitClass;
        if (hitBlocks == 0) {
            hitClass = HitClass.MISS;
            count(StoreCounter.LOOKUP_MISS, 1);
        } else if (resident == units.size()) {
            hitClass = HitClass.L1;
            count(StoreCounter.LOOKUP_L1, 1);
        } else if (resident > 0) {
            hitClass = HitClass.MIXED;
            count(StoreCounter.LOOKUP_MIXED, 1);
        } else {
            hitClass = HitClass.L2;
            count(StoreCounter.LOOKUP_L2, 1);
        }
        LeaseStatus status = LeaseStatus.NONE;
        Lease existing = leaseByRequest.get(requestId);
        if (existing != null && sameRemainingUnits(existing, units)) {
            status = LeaseStatus.LEASED;
        } else if (hitClass == HitClass.L1) {
            status = createLease(requestId, units, expected, startBlock, storeEpoch, nowNs) != null ? LeaseStatus.LEASED : LeaseStatus.ADMISSION_WAIT;
        }
        count(StoreCounter.HIT_TOKENS, hitTokens);
        trace.record("lookup", requestId, hitClass.ordinal(), startBlock, hitBlocks, status.ordinal());
        // No pump: a lookup frees nothing and starts no promotion (an L1 lease pins resident slices only).
        return new LookupResult(requestId, hitClass, computedTokens, hitTokens, startBlock, hitBlocks, units, expected,
                resident, status, storeEpoch);
    }

    /**
     * The class a lookup would return now, without building its result or taking a lease: the
     * scheduler asks this for requests the prefetch bound would park anyway, so a long queue of
     * parked requests is not fully looked up on every pass. Same walk and cap as {@link #lookup}.
     */
    public HitClass classify(List<BlockKey> chain, long computedTokens, long promptTokens) {
        int blockTokens = geometry.blockTokens();
        if (computedTokens % blockTokens != 0 || promptTokens <= 0) {
            return HitClass.MISS;
        }
        int startBlock = (int) (computedTokens / blockTokens);
        long maxLeaseBlocks = settings.l1CapacityBytes() / laneBytes / tp;
        int found = 0;
        int resident = 0;
        while (startBlock + found < chain.size() && found < maxLeaseBlocks) {
            L2Index.Entry entry = index.visible(chain.get(startBlock + found));
            if (entry == null) {
                break;
            }
            // Only blocks inside the capped hit count; the cap is applied below, so count lazily.
            long blocksIfThisCounts = found + 1;
            long hitEnd = Math.min((startBlock + blocksIfThisCounts) * blockTokens, promptTokens - 1);
            if (hitEnd - computedTokens <= (long) found * blockTokens) {
                break;
            }
            found++;
            for (int lane = 0; lane < tp; lane++) {
                Slice slice = residentByUnit.getAt(lane * slotCount + entry.slot());
                if (slice != null && slice.content != null && slice.content.lane() == lane
                        && slice.content.key().equals(entry.key())) {
                    resident++;
                }
            }
        }
        if (found == 0) {
            return HitClass.MISS;
        }
        int units = found * tp;
        return resident == units ? HitClass.L1 : resident > 0 ? HitClass.MIXED : HitClass.L2;
    }

    /**
     * Evidence that {@link #classify} answers MIXED or L2 for a chain: the first block inside the
     * capped hit with a lane not resident in L1 ({@code unitIndex}), and the counters when it was
     * found. It holds while no L2 entry has been removed (every block up to it is still visible,
     * so it is still inside the hit) and that unit has gained no L1 content (so it is still
     * missing); nothing else can turn the answer into L1 or MISS. {@link #witnessHolds} checks
     * that in constant time, which spares re-walking the chains of a long parked queue on every
     * admission pass.
     */
    public record MixedOrL2Witness(long computedTokens, int unitIndex, long residencyGainsAt, long indexRemovalsAt) {}

    /**
     * A witness that {@code classify(chain, computedTokens, promptTokens)} is MIXED or L2, or null
     * when it is L1 or MISS. The same walk and cap as {@link #classify}, stopping at the first
     * counted block with a lane missing from L1.
     */
    public MixedOrL2Witness mixedOrL2Witness(List<BlockKey> chain, long computedTokens, long promptTokens) {
        int blockTokens = geometry.blockTokens();
        if (computedTokens % blockTokens != 0 || promptTokens <= 0) {
            return null;
        }
        int startBlock = (int) (computedTokens / blockTokens);
        long maxLeaseBlocks = settings.l1CapacityBytes() / laneBytes / tp;
        int found = 0;
        while (startBlock + found < chain.size() && found < maxLeaseBlocks) {
            L2Index.Entry entry = index.visible(chain.get(startBlock + found));
            if (entry == null) {
                return null;
            }
            long blocksIfThisCounts = found + 1;
            long hitEnd = Math.min((startBlock + blocksIfThisCounts) * blockTokens, promptTokens - 1);
            if (hitEnd - computedTokens <= (long) found * blockTokens) {
                return null;
            }
            found++;
            for (int lane = 0; lane < tp; lane++) {
                int unit = lane * slotCount + entry.slot();
                Slice slice = residentByUnit.getAt(unit);
                if (slice == null || slice.content == null || slice.content.lane() != lane
                        || !slice.content.key().equals(entry.key())) {
                    return new MixedOrL2Witness(computedTokens, unit, residencyGains, index.removals());
                }
            }
        }
        return null;
    }

    /** A unit gained L1 content (or may have): stamp it for the witnesses (see {@link MixedOrL2Witness}). */
    private void residencyGained(long unit) {
        int index = unitIndex(unit);
        residencyGainByUnit[index] = ++residencyGains;
        if (watchersByUnit[index] > 0) {
            watchedResidencyGains++;
        }
    }

    /** Counts {@code witness}'s unit as watched until {@link #unwatch}: its gains then bump {@link #watchedResidencyGains()}. */
    public void watch(MixedOrL2Witness witness) {
        watchersByUnit[witness.unitIndex()]++;
    }

    public void unwatch(MixedOrL2Witness witness) {
        watchersByUnit[witness.unitIndex()]--;
    }

    /**
     * Gains of L1 content on watched units so far. While this and {@link L2Index#removals()} are
     * unchanged, every watched witness that held still holds.
     */
    public long watchedResidencyGains() {
        return watchedResidencyGains;
    }

    /** L2 index entries removed so far (see {@link L2Index#removals()}). */
    public long indexRemovals() {
        return index.removals();
    }

    /** Whether {@code witness} still holds (see {@link MixedOrL2Witness}); constant time. */
    public boolean witnessHolds(MixedOrL2Witness witness) {
        return index.removals() == witness.indexRemovalsAt()
                && residencyGainByUnit[witness.unitIndex()] <= witness.residencyGainsAt();
    }

    private static boolean holds(Slice slice, BlockKey key, int lane) {
        Content content = slice.content;
        return content != null && content.lane() == lane && content.key().equals(key);
    }

    private boolean sameRemainingUnits(Lease lease, List<Long> units) {
        List<Long> remaining = new ArrayList<>();
        for (LeaseUnit unit : lease.units) {
            if (unit.state != UnitState.RELEASED) {
                remaining.add(unit.unit);
            }
        }
        return remaining.equals(units);
    }

    /**
     * Takes a lease on every unit of a hit: resident units are pinned at once, missing ones are
     * promoted from L2 under the lease (a prefetch, or the synchronous path of a load when
     * prefetch is off). Completion is reported with {@link StoreEvent.AcquireDone}.
     */
    public AcquireOutcome acquire(long requestId, LookupResult hit, long nowNs) {
        if (!hit.isHit()) {
            return AcquireOutcome.NOTHING_TO_ACQUIRE;
        }
        Lease existing = leaseByRequest.get(requestId);
        if (existing != null && sameRemainingUnits(existing, hit.units())) {
            return existing.promotingUnits == 0 && existing.failedUnits == 0 ? AcquireOutcome.READY : AcquireOutcome.PROMOTING;
        }
        if (existing != null) {
            releaseLease(requestId, nowNs);
        }
        Lease lease = createLease(requestId, hit.units(), hit.expected(), hit.startBlock(), hit.storeEpoch(), nowNs);
        AcquireOutcome outcome;
        if (lease == null) {
            outcome = AcquireOutcome.ADMISSION_WAIT;
        } else if (lease.promotingUnits == 0) {
            lease.acquireReported = true;
            outcome = AcquireOutcome.READY;
        } else {
            outcome = AcquireOutcome.PROMOTING;
        }
        trace.record("acquire", requestId, outcome.ordinal());
        pump();
        return outcome;
    }

    /** Lease admission, then pin resident units and start promotions for the others. Null when admission says wait. */
    private Lease createLease(long requestId, List<Long> units, List<Content> expected, int startBlock, long epochAtLookup,
                              long nowNs) {
        long bytes = units.size() * laneBytes;
        if (!hasBug(KnownBug.R5_NO_LEASE_ADMISSION) && leasedRemainingBytes + bytes > settings.l1CapacityBytes()) {
            count(StoreCounter.LEASE_ADMISSION_WAITS, 1);
            trace.record("lease-wait", requestId, bytes, leasedRemainingBytes);
            return null;
        }
        Lease lease = new Lease(nextId++, requestId);
        leasesById.put(lease.leaseId, lease);
        leaseByRequest.put(requestId, lease);
        count(StoreCounter.LEASES_CREATED, 1);
        trace.record("lease", lease.leaseId, requestId, bytes);
        List<LeaseUnit> toTouch = new ArrayList<>();
        for (int i = 0; i < units.size(); i++) {
            long unit = units.get(i);
            LeaseUnit leaseUnit = new LeaseUnit(lease, unit, expected.get(i), startBlock + i / tp, epochAtLookup);
            lease.units.add(leaseUnit);
            leasedUnitCounts[unitIndex(unit)]++;
            leasedRemainingBytes += laneBytes;
            Slice slice = residentByUnit.get(unit);
            if (slice != null && leaseUnit.expected.equals(slice.content)) {
                attach(leaseUnit, slice);
                toTouch.add(leaseUnit);
            } else {
                leaseUnit.state = UnitState.PROMOTING;
                lease.promotingUnits++;
                startPromotion(leaseUnit);
            }
        }
        // Refresh recency from the suffix to the prefix, so the prefix ends up most recent and a
        // suffix (useless without its prefix) is evicted first among equally old blocks.
        for (int i = toTouch.size() - 1; i >= 0; i--) {
            touch(toTouch.get(i).unit, requestId, toTouch.get(i).blockIndex);
        }
        return lease;
    }

    private void attach(LeaseUnit leaseUnit, Slice slice) {
        leaseUnit.slice = slice;
        leaseUnit.state = UnitState.HELD;
        leaseUnit.promotion = null;
        slice.leaseRefs++;
        rolesChanged(slice);
    }

    /** An access: refresh recency, and a headroom entry that proved useful becomes an ordinary one. */
    private void touch(long unit, long groupId, int position) {
        Slice slice = residentByUnit.get(unit);
        if (slice.headroom) {
            unlinkHeadroom(slice);
            policy.onInsert(unitIndex(unit), groupId, position);
        } else {
            policy.onAccess(unitIndex(unit));
        }
    }

    /**
     * Releases a request's lease (finish, preemption, abort, shutdown). While its load is copying,
     * the lease is only marked release-all and finishes when the copy ends, so borrowed slices
     * are never reused under a copy (R8).
     */
    public void releaseLease(long requestId, long nowNs) {
        Lease lease = leaseByRequest.get(requestId);
        if (lease == null) {
            return;
        }
        if (lease.activeLoad != null) {
            if (!hasBug(KnownBug.R8_RELEASE_BORROW_ON_CANCEL)) {
                lease.releaseAll = true;
                trace.record("lease-release-all", lease.leaseId);
                return;
            }
            // The bug: give the borrowed slices back now, while the copy still reads them.
            returnBorrows(lease.activeLoad);
        }
        finishRelease(lease);
        pump();
    }

    private void finishRelease(Lease lease) {
        if (leaseByRequest.get(lease.requestId) == lease) {
            leaseByRequest.remove(lease.requestId);
        }
        leasesById.remove(lease.leaseId);
        for (LeaseUnit leaseUnit : lease.units) {
            releaseUnit(leaseUnit);
        }
        count(StoreCounter.LEASES_RELEASED, 1);
        trace.record("lease-release", lease.leaseId);
    }

    private void releaseUnit(LeaseUnit leaseUnit) {
        if (leaseUnit.state == UnitState.RELEASED) {
            return;
        }
        if (leaseUnit.state == UnitState.HELD) {
            Slice slice = leaseUnit.slice;
            slice.leaseRefs--;
            rolesChanged(slice);
        } else if (leaseUnit.state == UnitState.PROMOTING) {
            Promotion promotion = leaseUnit.promotion;
            promotion.waiters.remove(leaseUnit);
            leaseUnit.lease.promotingUnits--;
            if (promotion.waiters.isEmpty()) {
                cancelPromotion(promotion);
            }
        }
        leaseUnit.state = UnitState.RELEASED;
        leaseUnit.slice = null;
        leaseUnit.promotion = null;
        leasedUnitCounts[unitIndex(leaseUnit.unit)]--;
        leasedRemainingBytes -= laneBytes;
    }

    // ------------------------------------------------------------------------------------------
    // Promotions (L2 → L1)
    // ------------------------------------------------------------------------------------------

    private void startPromotion(LeaseUnit leaseUnit) {
        Promotion inFlight = promotionByUnit.get(leaseUnit.unit);
        if (inFlight != null && !hasBug(KnownBug.R6_NO_SINGLE_FLIGHT)) {
            // Single flight: one L2 read, one slice, shared by every lease that wants the range.
            inFlight.waiters.add(leaseUnit);
            inFlight.epochBaseline = Math.min(inFlight.epochBaseline, leaseUnit.epochAtLookup);
            leaseUnit.promotion = inFlight;
            count(StoreCounter.PROMOTIONS_JOINED, 1);
            trace.record("promotion-join", inFlight.promotionId, leaseUnit.lease.leaseId);
            return;
        }
        Promotion promotion = new Promotion(nextId++, leaseUnit.unit);
        promotion.waiters.add(leaseUnit);
        promotion.epochBaseline = leaseUnit.epochAtLookup;
        leaseUnit.promotion = promotion;
        promotionByUnit.putIfAbsent(leaseUnit.unit, promotion);
        count(StoreCounter.PROMOTIONS_STARTED, 1);
        trace.record("promotion", promotion.promotionId, leaseUnit.unit, leaseUnit.lease.leaseId);
        promotionsWaitingForSpace.addLast(promotion);
    }

    /** Reserves space for waiting promotions in FIFO order; stops at the first that must wait. */
    private boolean reserveWaitingPromotions() {
        boolean progress = false;
        while (!promotionsWaitingForSpace.isEmpty()) {
            Promotion promotion = promotionsWaitingForSpace.peekFirst();
            long offset = reserve(1);
            if (offset == L1Pool.NO_SPACE) {
                if (!promotion.countedWait) {
                    promotion.countedWait = true;
                    count(StoreCounter.PROMOTION_RESERVATION_WAITS, 1);
                    trace.record("promotion-wait-space", promotion.promotionId);
                }
                return progress;
            }
            promotionsWaitingForSpace.pollFirst();
            progress = true;
            Slice slice = newSlice(offset, promotion.unit);
            slice.reserved = true;
            rolesChanged(slice);
            promotion.slice = slice;
            promotion.epochBaseline = Math.min(promotion.epochBaseline, storeEpoch);
            trace.record("promotion-reserve", promotion.promotionId, offset, promotion.epochBaseline);
            ArrayDeque<WriteOp> writes = pendingWritesByUnit.get(promotion.unit);
            if (writes != null && !writes.isEmpty()) {
                // The newest bytes of this range are still on their way to L2: read after the write lands.
                promotion.state = PromotionState.WAIT_WRITE;
                List<Promotion> waiting = promotionsWaitingForWrite.get(promotion.unit);
                if (waiting == null) {
                    waiting = new ArrayList<>();
                    promotionsWaitingForWrite.put(promotion.unit, waiting);
                }
                waiting.add(promotion);
            } else {
                promotion.state = PromotionState.READY;
                readyReads.add(promotion);
            }
        }
        return progress;
    }

    /** Groups the reads that became ready in this step into batches of at most ringCount reads. */
    private void flushReadyReads() {
        if (readyReads.isEmpty()) {
            return;
        }
        int batchLimit = settings.batchL2Reads() ? settings.ringCount() : 1;
        long maxBatchBytes = settings.l1CapacityBytes();
        int i = 0;
        while (i < readyReads.size()) {
            int end = i;
            long bytes = 0;
            while (end < readyReads.size() && end - i < batchLimit && bytes + laneBytes <= maxBatchBytes) {
                bytes += laneBytes;
                end++;
            }
            ReadBatch batch = new ReadBatch(nextId++);
            count(StoreCounter.L2_READ_BATCHES, 1);
            for (int j = i; j < end; j++) {
                Promotion promotion = readyReads.get(j);
                promotion.batch = batch;
                promotion.state = PromotionState.READING;
                batch.outstanding++;
                long ticket = nextTicket++;
                inflightByTicket.put(ticket, promotion);
                emit(new IoOp.L2Read(ticket, promotion.unit, laneBytes, promotion.slice.poolOffset, batch.batchId, end - i));
                count(StoreCounter.L2_READ_OPS, 1);
                count(StoreCounter.L2_READ_BYTES, laneBytes);
            }
            i = end;
        }
        readyReads.clear();
    }

    private void onPromotionRead(Promotion promotion, IoCompletion completion) {
        promotion.batch.outstanding--;
        promotionByUnit.remove(promotion.unit, promotion);
        if (promotion.cancelled) {
            // Nobody wants the bytes any more; the slice was kept reserved until the read landed.
            if (promotion.slice != null && !promotion.slice.freed && !promotion.leakOnCompletion) {
                promotion.slice.reserved = false;
                rolesChanged(promotion.slice);
            }
            trace.record("promotion-drop-cancelled", promotion.promotionId);
            return;
        }
        if (!completion.succeeded()) {
            failPromotion(promotion);
            return;
        }
        Slice slice = promotion.slice;
        Slice residentNow = residentByUnit.get(promotion.unit);
        long lastStore = lastStoreEpochByUnit[unitIndex(promotion.unit)];
        // The epoch only moves when a store commits. Between the ring evicting a run and the new
        // owner's commit (which may be waiting for a lease on this very unit), the read returns the
        // evicted key's bytes with no newer epoch: publishing them would put a slice at a unit that
        // no longer belongs to that key, over the old slice another lease may still hold (R4).
        boolean stale = residentNow != null || lastStore > promotion.epochBaseline || !everyWaiterIndexed(promotion);
        if (stale && !hasBug(KnownBug.R1_PUBLISH_STALE_PROMOTION)) {
            count(StoreCounter.PROMOTIONS_STALE, 1);
            trace.record("promotion-stale", promotion.promotionId, lastStore, promotion.epochBaseline);
            slice.reserved = false;
            rolesChanged(slice);
            for (LeaseUnit waiter : new ArrayList<>(promotion.waiters)) {
                resolveStaleWaiter(waiter);
            }
            return;
        }
        // Attach to every lease first, then publish, so the publish's own eviction cannot take it.
        slice.reserved = false;
        slice.content = promotion.waiters.get(0).expected;
        residencyGained(slice.unit);
        for (LeaseUnit waiter : promotion.waiters) {
            attach(waiter, slice);
            waiter.viaPromotion = true;
            waiter.lease.promotingUnits--;
        }
        publish(slice, settings.promotionsAsHeadroom(), promotion.waiters.get(0).lease.requestId,
                promotion.waiters.get(0).blockIndex);
        count(StoreCounter.PROMOTIONS_PUBLISHED, 1);
        trace.record("promotion-publish", promotion.promotionId, slice.poolOffset);
        for (LeaseUnit waiter : promotion.waiters) {
            reportAcquireIfDone(waiter.lease);
        }
    }

    /** True while the key every waiter expects is still visible in the L2 index at the promotion's unit. */
    private boolean everyWaiterIndexed(Promotion promotion) {
        for (LeaseUnit waiter : promotion.waiters) {
            if (!indexed(waiter.expected, promotion.unit)) {
                return false;
            }
        }
        return true;
    }

    private boolean indexed(Content expected, long unit) {
        L2Index.Entry entry = index.visible(expected.key());
        return entry != null && unitOffset(entry.slot(), expected.lane()) == unit;
    }

    /** A stale promotion's lease takes the newer resident bytes if they are what it expects, else reads again. */
    private void resolveStaleWaiter(LeaseUnit waiter) {
        waiter.lease.promotingUnits--;
        Slice resident = residentByUnit.get(waiter.unit);
        if (resident != null && waiter.expected.equals(resident.content)) {
            attach(waiter, resident);
            reportAcquireIfDone(waiter.lease);
            return;
        }
        if (indexed(waiter.expected, waiter.unit) && lastStoreEpochByUnit[unitIndex(waiter.unit)] <= waiter.epochAtLookup) {
            waiter.state = UnitState.PROMOTING;
            waiter.lease.promotingUnits++;
            startPromotion(waiter);
        } else {
            // The key left L2 meanwhile: this range will be recomputed.
            waiter.state = UnitState.FAILED;
            waiter.promotion = null;
            waiter.lease.failedUnits++;
            reportAcquireIfDone(waiter.lease);
        }
    }

    private void failPromotion(Promotion promotion) {
        count(StoreCounter.PROMOTIONS_FAILED, 1);
        trace.record("promotion-fail", promotion.promotionId);
        if (hasBug(KnownBug.R7_LEAK_FAILED_PROMOTION)) {
            // The bug: the reservation is kept and the waiters are never told.
            return;
        }
        promotion.slice.reserved = false;
        rolesChanged(promotion.slice);
        List<Lease> affected = new ArrayList<>();
        for (LeaseUnit waiter : promotion.waiters) {
            waiter.state = UnitState.FAILED;
            waiter.promotion = null;
            waiter.lease.promotingUnits--;
            waiter.lease.failedUnits++;
            affected.add(waiter.lease);
        }
        for (Lease lease : affected) {
            if (hasBug(KnownBug.R9_SURFACE_BATCH_ERROR_EARLY) && !lease.acquireReported) {
                // The bug: surface the error before the rest of the batch has completed.
                lease.acquireReported = true;
                events.add(new StoreEvent.AcquireDone(lease.requestId, false));
            } else {
                reportAcquireIfDone(lease);
            }
        }
    }

    private void cancelPromotion(Promotion promotion) {
        count(StoreCounter.PROMOTIONS_CANCELLED, 1);
        trace.record("promotion-cancel", promotion.promotionId, promotion.state.ordinal());
        promotionByUnit.remove(promotion.unit, promotion);
        switch (promotion.state) {
            case WAIT_SPACE -> promotionsWaitingForSpace.remove(promotion);
            case WAIT_WRITE, READY -> {
                List<Promotion> waiting = promotionsWaitingForWrite.get(promotion.unit);
                if (waiting != null) {
                    waiting.remove(promotion);
                }
                readyReads.remove(promotion);
                if (!hasBug(KnownBug.R7_LEAK_FAILED_PROMOTION)) {
                    promotion.slice.reserved = false;
                    rolesChanged(promotion.slice);
                }
            }
            case READING -> {
                boolean freeNow = hasBug(KnownBug.R9_SURFACE_BATCH_ERROR_EARLY);
                if (freeNow) {
                    // The bug: the buffer goes back to the pool while the kernel may still write into it.
                    promotion.slice.reserved = false;
                    rolesChanged(promotion.slice);
                }
                promotion.cancelled = true;
                // The R7 bug: the cancelled read's reservation is never given back.
                promotion.leakOnCompletion = hasBug(KnownBug.R7_LEAK_FAILED_PROMOTION) && !freeNow;
            }
        }
    }

    private void reportAcquireIfDone(Lease lease) {
        if (lease.promotingUnits == 0 && !lease.acquireReported && leasesById.containsKey(lease.leaseId)) {
            lease.acquireReported = true;
            boolean succeeded = lease.failedUnits == 0;
            events.add(new StoreEvent.AcquireDone(lease.requestId, succeeded));
            trace.record("acquire-done", lease.requestId, succeeded ? 1 : 0);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Loads (L1 → GPU)
    // ------------------------------------------------------------------------------------------

    /**
     * Copies every unit of the request's (fully held) lease to the GPU in one grouped copy that
     * borrows the slices until it completes.
     *
     * @param gpuBlockIds the GPU block receiving each loaded block, in hit order
     */
    public LoadOutcome load(long requestId, List<Long> gpuBlockIds, long nowNs) {
        Lease lease = leaseByRequest.get(requestId);
        if (lease == null) {
            return LoadOutcome.NO_LEASE;
        }
        if (lease.activeLoad != null) {
            return LoadOutcome.ALREADY_LOADING;
        }
        if (lease.promotingUnits > 0 || lease.failedUnits > 0) {
            return LoadOutcome.LEASE_NOT_READY;
        }
        List<IoOp.GpuLoadSegment> segments = new ArrayList<>();
        List<Slice> borrowed = new ArrayList<>();
        int firstBlock = lease.units.isEmpty() ? 0 : lease.units.get(0).blockIndex;
        for (LeaseUnit leaseUnit : lease.units) {
            if (leaseUnit.state != UnitState.HELD) {
                continue;
            }
            // A leased load resolves only through its lease's slices.
            Slice slice = leaseUnit.slice;
            slice.borrowRefs++;
            rolesChanged(slice);
            borrowed.add(slice);
            long gpuBlock = gpuBlockIds.get(leaseUnit.blockIndex - firstBlock);
            segments.add(new IoOp.GpuLoadSegment(slice.poolOffset, laneBytes, gpuBlock, leaseUnit.expected));
            count(leaseUnit.viaPromotion ? StoreCounter.L2_HIT_BYTES : StoreCounter.L1_HIT_BYTES, laneBytes);
        }
        Load load = new Load(lease, borrowed);
        lease.activeLoad = load;
        long ticket = nextTicket++;
        inflightByTicket.put(ticket, load);
        IoOp.CopyToGpu copy = new IoOp.CopyToGpu(ticket, requestId, segments);
        emit(copy);
        count(StoreCounter.GPU_LOAD_OPS, 1);
        count(StoreCounter.GPU_LOAD_BYTES, copy.totalBytes());
        return LoadOutcome.STARTED;
    }

    private void returnBorrows(Load load) {
        if (load.borrowsReturned) {
            return;
        }
        load.borrowsReturned = true;
        for (Slice slice : load.borrowed) {
            slice.borrowRefs--;
            rolesChanged(slice);
        }
    }

    private void onLoadCopied(Load load, IoCompletion completion) {
        returnBorrows(load);
        Lease lease = load.lease;
        lease.activeLoad = null;
        if (!completion.succeeded()) {
            count(StoreCounter.LOADS_FAILED, 1);
        }
        events.add(new StoreEvent.LoadDone(lease.requestId, completion.succeeded()));
        trace.record("load-done", lease.requestId, completion.succeeded() ? 1 : 0);
        if (!leasesById.containsKey(lease.leaseId)) {
            return;
        }
        if (lease.releaseAll) {
            finishRelease(lease);
        } else if (completion.succeeded()) {
            // Release by range as the load finishes: the lease stops blocking stores of these ranges.
            for (LeaseUnit leaseUnit : lease.units) {
                releaseUnit(leaseUnit);
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Stores (save after prefill)
    // ------------------------------------------------------------------------------------------

    /**
     * Queues the save of a request's blocks {@code [firstBlock, firstBlock + blockCount)}. Blocks
     * already present are skipped (first writer wins); the rest get contiguous L2 slots now, and
     * go through the FIFO store queue: wait for overlapping leases, reserve L1, stage from the GPU
     * (bounded by {@code stagingSlots}), re-check leases, commit and write to L2.
     *
     * @param gpuBlockIds GPU block holding each of the blocks, in order
     */
    public SaveOutcome enqueueSave(long requestId, List<BlockKey> chain, int firstBlock, int blockCount,
                                   List<Long> gpuBlockIds, long nowNs) {
        count(StoreCounter.STORES_ENQUEUED, 1);
        List<Integer> newPositions = new ArrayList<>();
        int present = 0;
        int conflicting = 0;
        for (int b = firstBlock; b < firstBlock + blockCount; b++) {
            BlockKey parent = b == 0 ? BlockKey.ROOT : chain.get(b - 1);
            switch (index.canClaim(chain.get(b), parent, geometry.blockTokens())) {
                case CLAIMED -> newPositions.add(b);
                case ALREADY_PRESENT -> present++;
                case CONFLICT -> conflicting++;
            }
        }
        count(StoreCounter.STORE_BLOCKS_ALREADY_PRESENT, present);
        count(StoreCounter.STORE_BLOCKS_CONFLICT, conflicting);
        if (newPositions.size() > slotCount) {
            newPositions = new ArrayList<>(newPositions.subList(0, slotCount));
        }
        trace.record("save", requestId, firstBlock, blockCount, newPositions.size(), present, conflicting);
        if (newPositions.isEmpty()) {
            pump();
            return new SaveOutcome(0, present, conflicting);
        }
        L2Ring.Allocation allocation = ring.allocate(newPositions.size());
        for (L2Ring.Run evicted : allocation.evicted()) {
            evictL2Run(evicted);
        }
        L2Ring.Run run = allocation.run();
        allocationJournal.add(run);
        trace.record("l2-alloc", run.runId(), run.firstSlot(), run.slotCount());
        List<Integer> slots = new ArrayList<>();
        List<BlockKey> keys = new ArrayList<>();
        List<Long> gpuBlocks = new ArrayList<>();
        for (int i = 0; i < newPositions.size(); i++) {
            int b = newPositions.get(i);
            int slot = run.firstSlot() + i;
            BlockKey parent = b == 0 ? BlockKey.ROOT : chain.get(b - 1);
            index.claim(chain.get(b), parent, slot, geometry.blockTokens(), run.runId());
            slots.add(slot);
            keys.add(chain.get(b));
            gpuBlocks.add(gpuBlockIds.get(b - firstBlock));
        }
        count(StoreCounter.STORE_BLOCKS_CLAIMED, newPositions.size());
        StoreJob job = new StoreJob(requestId);
        List<StoreJob> jobs = jobsByRequest.get(requestId);
        if (jobs == null) {
            jobs = new ArrayList<>();
            jobsByRequest.put(requestId, jobs);
        }
        jobs.add(job);
        int unitsPerBatch = settings.contiguousStaging() ? (int) Math.max(1, settings.writeBatchMaxBytes() / laneBytes) : 1;
        for (int lane = 0; lane < tp; lane++) {
            for (int from = 0; from < slots.size(); from += unitsPerBatch) {
                int to = Math.min(slots.size(), from + unitsPerBatch);
                StoreBatch batch = new StoreBatch(job, lane, run.runId(), slots.subList(from, to),
                        keys.subList(from, to), newPositions.subList(from, to), gpuBlocks.subList(from, to));
                job.batchesTotal++;
                storeQueue.addLast(batch);
                count(StoreCounter.STORE_BATCHES, 1);
            }
        }
        pump();
        return new SaveOutcome(newPositions.size(), present, conflicting);
    }

    /** The ring evicted a run: its keys leave the index at once, and their L1 copies leave L1. */
    private void evictL2Run(L2Ring.Run run) {
        count(StoreCounter.L2_RUNS_EVICTED, 1);
        trace.record("l2-evict", run.runId(), run.firstSlot(), run.slotCount());
        for (int slot = run.firstSlot(); slot < run.endSlot(); slot++) {
            if (index.removeSlot(slot) != null) {
                count(StoreCounter.L2_KEYS_EVICTED, 1);
            }
            for (int lane = 0; lane < tp; lane++) {
                Slice resident = residentByUnit.get(unitOffset(slot, lane));
                if (resident != null) {
                    unpublish(resident);
                }
            }
        }
    }

    /**
     * Preemption: the engine is about to reuse the request's GPU blocks, so saves that have not
     * started copying are cancelled (their claims leave the index; the ring reclaims the slots).
     * Copies already in flight finish; {@link StoreEvent.SaveStaged} says when the blocks are free.
     *
     * @return true if a staging copy is still in flight and the GPU blocks must wait for SaveStaged
     */
    public boolean cancelSaves(long requestId, long nowNs) {
        List<StoreJob> jobs = jobsByRequest.get(requestId);
        if (jobs == null) {
            return false;
        }
        if (hasBug(KnownBug.R10_SAVE_AFTER_PREEMPT)) {
            // The bug: queued saves go on and will copy GPU blocks that now belong to someone else.
            return false;
        }
        boolean copying = false;
        for (StoreJob job : jobs) {
            job.cancelled = true;
            copying |= job.copiesInFlight > 0;
        }
        for (Iterator<StoreBatch> it = storeQueue.iterator(); it.hasNext(); ) {
            StoreBatch batch = it.next();
            if (batch.job.cancelled) {
                it.remove();
                dropBatch(batch);
            }
        }
        count(StoreCounter.STORES_CANCELLED, 1);
        trace.record("save-cancel", requestId, copying ? 1 : 0);
        pump();
        return copying;
    }

    private void dropBatch(StoreBatch batch) {
        for (Slice slice : batch.slices) {
            slice.reserved = false;
            rolesChanged(slice);
        }
        batch.slices.clear();
        for (int i = 0; i < batch.size(); i++) {
            L2Index.Entry entry = index.atSlot(batch.slots.get(i));
            if (entry != null && entry.runId() == batch.runId && entry.key().equals(batch.keys.get(i))
                    && entry.committedLaneMask() == 0) {
                index.removeSlot(batch.slots.get(i));
            }
        }
        batch.state = BatchState.DONE;
        finishBatch(batch);
    }

    private boolean overlapsLease(StoreBatch batch) {
        if (hasBug(KnownBug.R4_STORE_IGNORES_LEASES)) {
            return false;
        }
        for (int slot : batch.slots) {
            if (ring.ownerOf(slot) != batch.runId && !hasBug(KnownBug.R11_WRITE_TO_REALLOCATED_SLOT)) {
                // The ring gave this slot to a newer run: commit drops this unit (R11), so it must not wait,
                // holding its reservation, for leases on the new owner's keys.
                continue;
            }
            if (leasedUnitCounts[unitIndex(unitOffset(slot, batch.lane))] > 0) {
                return true;
            }
        }
        return false;
    }

    /** True while a save of the request cancelled by a preemption still has a staging copy reading its old GPU blocks. */
    public boolean cancelledStagingInFlight(long requestId) {
        List<StoreJob> jobs = jobsByRequest.get(requestId);
        if (jobs == null) {
            return false;
        }
        for (StoreJob job : jobs) {
            if (job.cancelled && job.copiesInFlight > 0) {
                return true;
            }
        }
        return false;
    }

    /** Moves the head of the FIFO store queue as far as it can go. */
    private boolean pumpStoreQueue() {
        boolean progress = false;
        while (!storeQueue.isEmpty()) {
            StoreBatch batch = storeQueue.peekFirst();
            if (batch.state == BatchState.WAIT_LEASES) {
                if (overlapsLease(batch)) {
                    if (!batch.countedLeaseWait) {
                        batch.countedLeaseWait = true;
                        count(StoreCounter.STORE_LEASE_WAITS, 1);
                        trace.record("store-wait-lease", batch.job.requestId, batch.slots.get(0));
                    }
                    return progress;
                }
                batch.state = BatchState.RESERVE;
            }
            if (batch.state == BatchState.RESERVE) {
                long offset = reserve(batch.size());
                if (offset == L1Pool.NO_SPACE) {
                    if (batch.size() > 1) {
                        // Seal the batch here: the rest becomes the next batch.
                        storeQueue.pollFirst();
                        int half = batch.size() / 2;
                        StoreBatch head = subBatch(batch, 0, half);
                        StoreBatch tail = subBatch(batch, half, batch.size());
                        batch.job.batchesTotal++;
                        storeQueue.addFirst(tail);
                        storeQueue.addFirst(head);
                        progress = true;
                        continue;
                    }
                    if (!batch.countedReservationWait) {
                        batch.countedReservationWait = true;
                        count(StoreCounter.STORE_RESERVATION_WAITS, 1);
                        trace.record("store-wait-space", batch.job.requestId, batch.slots.get(0));
                    }
                    return progress;
                }
                for (int i = 0; i < batch.size(); i++) {
                    Slice slice = newSlice(offset + i * laneBytes, unitOffset(batch.slots.get(i), batch.lane));
                    slice.reserved = true;
                    rolesChanged(slice);
                    batch.slices.add(slice);
                }
                batch.state = BatchState.STAGE;
                progress = true;
            }
            if (batch.state == BatchState.STAGE) {
                if (stagingInUse >= settings.stagingSlots()) {
                    return progress;
                }
                stagingInUse++;
                storeQueue.pollFirst();
                batch.state = BatchState.COPYING;
                batch.job.copiesInFlight++;
                long ticket = nextTicket++;
                inflightByTicket.put(ticket, batch);
                List<Content> expected = new ArrayList<>();
                for (BlockKey key : batch.keys) {
                    expected.add(new Content(key, batch.lane));
                }
                IoOp.CopyFromGpu copy = new IoOp.CopyFromGpu(ticket, batch.job.requestId, batch.slices.get(0).poolOffset,
                        laneBytes, batch.lane, batch.gpuBlockIds, expected);
                emit(copy);
                count(StoreCounter.STAGING_COPIES, 1);
                count(StoreCounter.STAGING_BYTES, copy.totalBytes());
                progress = true;
            }
        }
        return progress;
    }

    private StoreBatch subBatch(StoreBatch batch, int from, int to) {
        return new StoreBatch(batch.job, batch.lane, batch.runId, batch.slots.subList(from, to), batch.keys.subList(from, to),
                batch.positions.subList(from, to), batch.gpuBlockIds.subList(from, to));
    }

    private void onStaged(StoreBatch batch, IoCompletion completion) {
        stagingInUse--;
        StoreJob job = batch.job;
        job.copiesInFlight--;
        job.batchesStaged++;
        if (!completion.succeeded() || job.cancelled) {
            dropBatch(batch);
        } else if (overlapsLease(batch)) {
            // A lease on these ranges appeared during the copy: keep the staged bytes and wait.
            batch.state = BatchState.WAIT_LEASES_AFTER_COPY;
            storesWaitingForLeasesAfterCopy.add(batch);
            count(StoreCounter.STORE_LEASE_WAITS, 1);
            trace.record("store-wait-lease-after-copy", job.requestId, batch.slots.get(0));
        } else {
            commit(batch);
        }
        reportStagedIfDone(job);
    }

    private void reportStagedIfDone(StoreJob job) {
        boolean allStaged = job.copiesInFlight == 0
                && (job.cancelled || job.batchesStaged >= job.batchesTotal);
        if (allStaged && !job.stagedReported) {
            job.stagedReported = true;
            events.add(new StoreEvent.SaveStaged(job.requestId, job.cancelled));
            trace.record("save-staged", job.requestId);
        }
    }

    private boolean retryStoresWaitingForLeases() {
        boolean progress = false;
        for (Iterator<StoreBatch> it = storesWaitingForLeasesAfterCopy.iterator(); it.hasNext(); ) {
            StoreBatch batch = it.next();
            if (batch.job.cancelled) {
                it.remove();
                dropBatch(batch);
                progress = true;
            } else if (!overlapsLease(batch)) {
                it.remove();
                commit(batch);
                progress = true;
            }
        }
        return progress;
    }

    /**
     * Step 5 of a store: bump the epoch, chain the L2 write after pending overlapping writes,
     * publish in L1 (dropping overlapping residents) and commit the lane in the index. A unit
     * whose slot the ring has since given to another run is dropped (R11).
     */
    private void commit(StoreBatch batch) {
        List<Slice> kept = new ArrayList<>();
        List<Integer> keptIndex = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            int slot = batch.slots.get(i);
            Slice slice = batch.slices.get(i);
            boolean reallocated = ring.ownerOf(slot) != batch.runId;
            if (reallocated && !hasBug(KnownBug.R11_WRITE_TO_REALLOCATED_SLOT)) {
                count(StoreCounter.STORE_UNITS_DROPPED_REALLOCATED, 1);
                trace.record("store-drop-reallocated", batch.job.requestId, slot);
                slice.reserved = false;
                rolesChanged(slice);
                continue;
            }
            kept.add(slice);
            keptIndex.add(i);
        }
        // Publish suffix first so the prefix ends most recent (see createLease).
        for (int k = kept.size() - 1; k >= 0; k--) {
            int i = keptIndex.get(k);
            Slice slice = kept.get(k);
            long epoch = ++storeEpoch;
            lastStoreEpochByUnit[unitIndex(slice.unit)] = epoch;
            slice.reserved = false;
            slice.content = new Content(batch.keys.get(i), batch.lane);
            residencyGained(slice.unit);
            boolean reallocated = ring.ownerOf(batch.slots.get(i)) != batch.runId;
            if (!reallocated) {
                publish(slice, false, batch.job.requestId, batch.positions.get(i));
            }
            L2Index.CommitOutcome outcome = index.commitLane(batch.keys.get(i), batch.slots.get(i), batch.runId, batch.lane, epoch);
            if (outcome == L2Index.CommitOutcome.LATE_IGNORED) {
                count(StoreCounter.LATE_COMMITS_IGNORED, 1);
            }
            count(StoreCounter.STORE_UNITS_COMMITTED, 1);
            trace.record("commit", batch.job.requestId, slice.unit, epoch, outcome.ordinal());
        }
        // One L2 write per piece that is contiguous both in L1 and on L2.
        int start = 0;
        while (start < kept.size()) {
            int end = start + 1;
            while (end < kept.size()
                    && keptIndex.get(end) == keptIndex.get(end - 1) + 1
                    && kept.get(end).poolOffset == kept.get(end - 1).poolOffset + laneBytes
                    && kept.get(end).unit == kept.get(end - 1).unit + laneBytes) {
                end++;
            }
            issueWrite(new ArrayList<>(kept.subList(start, end)));
            start = end;
        }
        batch.state = BatchState.DONE;
        finishBatch(batch);
        if (!settings.contiguousStaging()) {
            trim();
        }
    }

    private void finishBatch(StoreBatch batch) {
        StoreJob job = batch.job;
        job.batchesFinished++;
        if (job.batchesFinished >= job.batchesTotal) {
            List<StoreJob> jobs = jobsByRequest.get(job.requestId);
            if (jobs != null) {
                jobs.remove(job);
                if (jobs.isEmpty()) {
                    jobsByRequest.remove(job.requestId);
                }
            }
            if (settings.contiguousStaging()) {
                trim();
            }
        }
    }

    private void issueWrite(List<Slice> sources) {
        List<Long> units = new ArrayList<>();
        for (Slice slice : sources) {
            units.add(slice.unit);
            slice.pendingWrites++;
            rolesChanged(slice);
        }
        WriteOp write = new WriteOp(sources.get(0).poolOffset, sources.get(0).unit, sources, units);
        for (int i = 0; i < units.size(); i++) {
            write.epochs[i] = lastStoreEpochByUnit[unitIndex(units.get(i))];
        }
        for (long unit : units) {
            ArrayDeque<WriteOp> queue = pendingWritesByUnit.get(unit);
            if (queue == null) {
                queue = new ArrayDeque<>();
                pendingWritesByUnit.put(unit, queue);
            }
            if (!queue.isEmpty() && !hasBug(KnownBug.R3_UNCHAINED_OVERLAPPING_WRITES)) {
                WriteOp previous = queue.peekLast();
                if (!previous.dependents.contains(write)) {
                    previous.dependents.add(write);
                    write.waitingOn++;
                }
            }
            queue.addLast(write);
        }
        if (write.waitingOn > 0) {
            count(StoreCounter.WRITES_CHAINED, 1);
            trace.record("write-chained", write.l2Offset, write.waitingOn);
        } else {
            submitWrite(write);
        }
    }

    /**
     * A failed write leaves its L2 range without the bytes: where it carried the newest store of a
     * unit, that unit's key leaves the index (a later lookup recomputes it instead of reading
     * garbage) and its L1 copy, now unreachable, leaves L1.
     */
    private void forgetUnwrittenKeys(WriteOp write) {
        for (int i = 0; i < write.units.size(); i++) {
            long unit = write.units.get(i);
            if (lastStoreEpochByUnit[unitIndex(unit)] != write.epochs[i]) {
                continue;
            }
            int slot = slotOf(unit);
            // The range's bytes changed (to garbage): a new epoch makes any read of it stale.
            lastStoreEpochByUnit[unitIndex(unit)] = ++storeEpoch;
            if (index.removeSlot(slot) != null) {
                count(StoreCounter.L2_KEYS_LOST, 1);
                trace.record("key-lost", slot);
            }
            for (int lane = 0; lane < tp; lane++) {
                Slice resident = residentByUnit.get(unitOffset(slot, lane));
                if (resident != null && isEvictable(resident)) {
                    unpublish(resident);
                }
            }
        }
    }

    private void submitWrite(WriteOp write) {
        write.ticket = nextTicket++;
        inflightByTicket.put(write.ticket, write);
        long bytes = write.units.size() * laneBytes;
        emit(new IoOp.L2Write(write.ticket, write.l1Offset, write.l2Offset, bytes));
        count(StoreCounter.L2_WRITE_OPS, 1);
        count(StoreCounter.L2_WRITE_BYTES, bytes);
    }

    private void onWriteDone(WriteOp write, IoCompletion completion) {
        if (!completion.succeeded()) {
            count(StoreCounter.L2_WRITE_FAILURES, 1);
            forgetUnwrittenKeys(write);
        }
        // The write leaves the chain whether it succeeded or not.
        for (Slice slice : write.sources) {
            if (!slice.freed) {
                slice.pendingWrites--;
                rolesChanged(slice);
            }
        }
        for (long unit : write.units) {
            ArrayDeque<WriteOp> queue = pendingWritesByUnit.get(unit);
            queue.remove(write);
            if (queue.isEmpty()) {
                pendingWritesByUnit.remove(unit);
                List<Promotion> waiting = promotionsWaitingForWrite.remove(unit);
                if (waiting != null) {
                    for (Promotion promotion : waiting) {
                        promotion.state = PromotionState.READY;
                        readyReads.add(promotion);
                    }
                }
            }
        }
        for (WriteOp dependent : write.dependents) {
            if (--dependent.waitingOn == 0) {
                submitWrite(dependent);
            }
        }
        trace.record("write-done", write.l2Offset, completion.succeeded() ? 1 : 0);
    }

    // ------------------------------------------------------------------------------------------
    // L1 space: reservation, publishing, eviction, save admission
    // ------------------------------------------------------------------------------------------

    private Slice newSlice(long poolOffset, long unit) {
        Slice slice = new Slice(poolOffset, unit);
        slicesByPoolOffset.put(poolOffset, slice);
        return slice;
    }

    /** Allocates units × laneBytes contiguous bytes, evicting as needed; NO_SPACE means wait. */
    private long reserve(int units) {
        long bytes = units * laneBytes;
        long offset = pool.allocate(bytes);
        while (offset == L1Pool.NO_SPACE) {
            if (units > 1 && pool.freeBytes() >= bytes) {
                // Enough bytes but not contiguous: evicting more would only punch more holes.
                // The caller seals the batch here and reserves the rest separately.
                return L1Pool.NO_SPACE;
            }
            if (!evictOne(false)) {
                return L1Pool.NO_SPACE;
            }
            offset = pool.allocate(bytes);
        }
        return offset;
    }

    private boolean isEvictable(Slice slice) {
        return slice != null && slice.resident && slice.leaseRefs == 0 && slice.borrowRefs == 0;
    }

    /**
     * Evicts one entry: headroom entries first (oldest first), then the policy's victim. With
     * {@code toFreeMemory} only entries whose eviction returns memory now are taken; otherwise
     * an entry whose bytes are still being written to L2 may leave the index too (its memory
     * returns when the write completes).
     */
    private boolean evictOne(boolean forTrim) {
        boolean freesMemoryOnly = !forTrim;
        for (Slice slice = headroomOldest; slice != null; slice = slice.headroomNewer) {
            if (isEvictable(slice) && (!freesMemoryOnly || evictionFreesMemory(slice))) {
                count(StoreCounter.HEADROOM_EVICTIONS, 1);
                evict(slice);
                return true;
            }
        }
        long victim = policy.selectVictim(key -> {
            Slice slice = residentByUnit.getAt((int) key);
            return isEvictable(slice) && (!freesMemoryOnly || evictionFreesMemory(slice));
        });
        if (victim == ReplacementPolicy.NO_VICTIM) {
            return false;
        }
        evict(residentByUnit.getAt((int) victim));
        return true;
    }

    private boolean evictionFreesMemory(Slice slice) {
        return slice.pendingWrites == 0 || hasBug(KnownBug.R2_REUSE_PENDING_WRITE_SLICE);
    }

    private void evict(Slice slice) {
        count(StoreCounter.EVICTIONS, 1);
        trace.record("evict", slice.unit, slice.headroom ? 1 : 0);
        unpublish(slice);
    }

    private void unpublish(Slice slice) {
        residentByUnit.remove(slice.unit, slice);
        if (slice.headroom) {
            unlinkHeadroom(slice);
        } else {
            policy.onRemove(unitIndex(slice.unit));
        }
        slice.resident = false;
        rolesChanged(slice);
    }

    private void appendHeadroom(Slice slice) {
        slice.headroom = true;
        slice.headroomOlder = headroomNewest;
        slice.headroomNewer = null;
        if (headroomNewest == null) {
            headroomOldest = slice;
        } else {
            headroomNewest.headroomNewer = slice;
        }
        headroomNewest = slice;
        headroomCount++;
    }

    private void unlinkHeadroom(Slice slice) {
        if (slice.headroomOlder == null) {
            headroomOldest = slice.headroomNewer;
        } else {
            slice.headroomOlder.headroomNewer = slice.headroomNewer;
        }
        if (slice.headroomNewer == null) {
            headroomNewest = slice.headroomOlder;
        } else {
            slice.headroomNewer.headroomOlder = slice.headroomOlder;
        }
        slice.headroomOlder = null;
        slice.headroomNewer = null;
        slice.headroom = false;
        headroomCount--;
    }

    private void publish(Slice slice, boolean asHeadroom, long groupId, int position) {
        Slice old = residentByUnit.get(slice.unit);
        if (old != null && old != slice) {
            unpublish(old);
        }
        residentByUnit.put(slice.unit, slice);
        residencyGained(slice.unit);
        slice.resident = true;
        if (asHeadroom) {
            appendHeadroom(slice);
        } else {
            policy.onInsert(unitIndex(slice.unit), groupId, position);
        }
        rolesChanged(slice);
    }

    /**
     * Save admission: trim L1 to max(one store unit, high_water), evicting headroom entries first.
     * Entries whose L2 write is pending may leave the index; their bytes count as on their way out.
     */
    private void trim() {
        long target = Math.max(laneBytes, settings.highWaterBytes());
        while (admissionUsedBytes() > target && evictOne(true)) {
            count(StoreCounter.TRIM_EVICTIONS, 1);
        }
    }

    /** L1 bytes that save admission counts: used bytes minus bytes that are only waiting for their L2 write. */
    public long admissionUsedBytes() {
        return pool.usedBytes() - bytesByCategory[Category.PENDING_WRITE_ONLY.ordinal()];
    }

    /** Keeps the per-category byte totals right and returns a slice with no role to the pool. */
    private void rolesChanged(Slice slice) {
        if (slice.freed) {
            return;
        }
        Category now = slice.strongestRole();
        if (now == Category.PENDING_WRITE_ONLY && hasBug(KnownBug.R2_REUSE_PENDING_WRITE_SLICE)) {
            // The bug: a slice whose only role is a pending write is treated as free.
            now = Category.NONE;
        }
        if (slice.category != now) {
            // NONE is not a bucket: a new slice enters from it and a freed one leaves to it.
            if (slice.category != Category.NONE) {
                bytesByCategory[slice.category.ordinal()] -= laneBytes;
            }
            if (now != Category.NONE) {
                bytesByCategory[now.ordinal()] += laneBytes;
            }
            slice.category = now;
        }
        if (now == Category.NONE) {
            slice.freed = true;
            slicesByPoolOffset.remove(slice.poolOffset);
            pool.release(slice.poolOffset, laneBytes);
            trace.record("free", slice.poolOffset);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Driving
    // ------------------------------------------------------------------------------------------

    /** Delivers a backend completion. Unknown tickets are a caller bug. */
    public void onCompletion(IoCompletion completion, long nowNs) {
        Object work = inflightByTicket.remove(completion.ticket());
        if (work == null) {
            throw new IllegalStateException("completion for unknown ticket " + completion.ticket());
        }
        trace.record("complete", completion.ticket(), completion.succeeded() ? 1 : 0);
        switch (work) {
            case Promotion promotion -> onPromotionRead(promotion, completion);
            case WriteOp write -> onWriteDone(write, completion);
            case Load load -> onLoadCopied(load, completion);
            case StoreBatch batch -> onStaged(batch, completion);
            default -> throw new IllegalStateException("unexpected in-flight work " + work);
        }
        pump();
    }

    /** Resumes everything that waits for space, leases or writes until nothing more can move. */
    private void pump() {
        boolean progress;
        do {
            progress = reserveWaitingPromotions();
            progress |= pumpStoreQueue();
            progress |= retryStoresWaitingForLeases();
        } while (progress);
        flushReadyReads();
    }

    private void emit(IoOp op) {
        outbox.addLast(op);
        switch (op) {
            case IoOp.L2Read read -> trace.record("op-read", read.ticket(), read.l2Offset(), read.l1Offset(), read.batchId());
            case IoOp.L2Write write -> trace.record("op-write", write.ticket(), write.l2Offset(), write.l1Offset(), write.lengthBytes());
            case IoOp.CopyToGpu copy -> trace.record("op-h2d", copy.ticket(), copy.requestId(), copy.segments().size());
            case IoOp.CopyFromGpu copy -> trace.record("op-d2h", copy.ticket(), copy.requestId(), copy.l1Offset(), copy.gpuBlockIds().size());
            case IoOp.Compute compute -> trace.record("op-compute", compute.ticket());
        }
    }

    /** Operations emitted since the last call, in emission order. */
    public List<IoOp> drainOps() {
        if (outbox.isEmpty()) {
            // Asked after every event and usually empty: no list allocated for nothing.
            return List.of();
        }
        List<IoOp> ops = new ArrayList<>(outbox);
        outbox.clear();
        return ops;
    }

    /** Events since the last call, in order. */
    public List<StoreEvent> drainEvents() {
        if (events.isEmpty()) {
            return List.of();
        }
        List<StoreEvent> drained = new ArrayList<>(events);
        events.clear();
        return drained;
    }

    /** Ticket numbers are shared with the scheduler so every op in a run has a distinct ticket. */
    public long newTicket() {
        return nextTicket++;
    }

    private void count(StoreCounter counter, long delta) {
        counters[counter.ordinal()] += delta;
    }

    // ------------------------------------------------------------------------------------------
    // Queries
    // ------------------------------------------------------------------------------------------

    public long counter(StoreCounter counter) {
        return counters[counter.ordinal()];
    }

    public StoreSettings settings() {
        return settings;
    }

    /** Whether the unit is an ordinary (policy-managed) resident entry, not a headroom one. */
    public boolean inPolicy(long unit) {
        return policy.contains(unitIndex(unit));
    }

    public DecisionTrace trace() {
        return trace;
    }

    public long l1UsedBytes() {
        return pool.usedBytes();
    }

    public L1Pool pool() {
        return pool;
    }

    public L2Ring ring() {
        return ring;
    }

    public L2Index index() {
        return index;
    }

    public boolean isResident(long unit) {
        return residentByUnit.containsKey(unit);
    }

    public boolean isHeadroom(long unit) {
        Slice slice = residentByUnit.get(unit);
        return slice != null && slice.headroom;
    }

    /** Resident units in ascending order. */
    public List<Long> residentUnits() {
        return residentByUnit.keys();
    }

    public int residentCount() {
        return residentByUnit.size();
    }

    public long leasedRemainingBytes() {
        return leasedRemainingBytes;
    }

    public boolean hasLease(long requestId) {
        return leaseByRequest.get(requestId) != null;
    }

    public int leaseCount() {
        return leasesById.size();
    }

    public int storeQueueDepth() {
        return storeQueue.size() + storesWaitingForLeasesAfterCopy.size();
    }

    public int inflightOps() {
        return inflightByTicket.size();
    }

    public int activePromotions() {
        return promotionByUnit.size();
    }

    /** Dead L2 bytes: committed blocks no lookup can reach because an ancestor was evicted. */
    public long deadL2Bytes() {
        return index.deadSlotCount() * geometry.blockBytes();
    }

    /**
     * I10's end state: no lease, reservation, pending write, borrow, queued store or in-flight
     * operation is left. Returns what is left, or an empty list.
     */
    public List<String> leftovers() {
        List<String> left = new ArrayList<>();
        if (!leasesById.isEmpty()) left.add(leasesById.size() + " leases");
        if (inflightByTicket.size() > 0) left.add(inflightByTicket.size() + " in-flight operations");
        if (!promotionsWaitingForSpace.isEmpty()) left.add(promotionsWaitingForSpace.size() + " promotions waiting for space");
        if (!storeQueue.isEmpty()) left.add(storeQueue.size() + " queued store batches");
        if (!storesWaitingForLeasesAfterCopy.isEmpty()) left.add(storesWaitingForLeasesAfterCopy.size() + " staged stores waiting for leases");
        if (!pendingWritesByUnit.isEmpty()) left.add(pendingWritesByUnit.size() + " units with pending writes");
        long reserved = bytesByCategory[Category.RESERVED.ordinal()];
        if (reserved != 0) left.add(reserved + " reserved bytes");
        long leased = bytesByCategory[Category.LEASED_ONLY.ordinal()];
        if (leased != 0) left.add(leased + " leased-only bytes");
        long borrowed = bytesByCategory[Category.BORROWED_ONLY.ordinal()];
        if (borrowed != 0) left.add(borrowed + " borrowed-only bytes");
        long pending = bytesByCategory[Category.PENDING_WRITE_ONLY.ordinal()];
        if (pending != 0) left.add(pending + " pending-write-only bytes");
        return left;
    }

    // ------------------------------------------------------------------------------------------
    // Invariants I1–I4, I9 (I5 is the scheduler's; I6–I8 are checked against payloads)
    // ------------------------------------------------------------------------------------------

    /** Throws IllegalStateException naming the invariant when the store's state is inconsistent. */
    public void checkInvariants() {
        pool.checkInvariants();
        ring.checkInvariants();
        index.checkInvariants(ring);
        policy.checkInvariants();
        // I1: every live slice is one allocation of its own, slices never overlap, categories add up.
        long[] recount = new long[Category.values().length];
        long previousEnd = -1;
        Map<Slice, int[]> expectedRefs = new HashMap<>();
        List<Slice> slicesInPoolOrder = slicesByPoolOffset.values();
        slicesInPoolOrder.sort(java.util.Comparator.comparingLong(slice -> slice.poolOffset));
        for (Slice slice : slicesInPoolOrder) {
            if (slice.poolOffset < previousEnd) {
                throw new IllegalStateException("I1: slices overlap at pool offset " + slice.poolOffset);
            }
            previousEnd = slice.poolOffset + laneBytes;
            if (pool.overlapsFree(slice.poolOffset, laneBytes)) {
                throw new IllegalStateException("I3: held slice at " + slice.poolOffset + " is on the free list");
            }
            if (slice.category != slice.strongestRole() && !hasBug(KnownBug.R2_REUSE_PENDING_WRITE_SLICE)) {
                throw new IllegalStateException("I1: slice at " + slice.poolOffset + " is accounted as " + slice.category
                        + " but holds " + slice.strongestRole());
            }
            recount[slice.category.ordinal()] += laneBytes;
            expectedRefs.put(slice, new int[3]);
        }
        long accounted = 0;
        for (Category category : Category.values()) {
            if (recount[category.ordinal()] != bytesByCategory[category.ordinal()]) {
                throw new IllegalStateException("I1: " + category + " bytes are " + bytesByCategory[category.ordinal()]
                        + " but slices add up to " + recount[category.ordinal()]);
            }
            accounted += recount[category.ordinal()];
        }
        if (accounted + pool.freeBytes() != pool.capacityBytes()) {
            throw new IllegalStateException("I1: free " + pool.freeBytes() + " + held " + accounted
                    + " != l1CapacityBytes " + pool.capacityBytes());
        }
        // I2: the L1 index maps each unit to one resident slice; headroom and policy partition it.
        // The headroom queue first: well linked, and every entry on it a resident headroom slice.
        long headroomLinked = 0;
        Slice older = null;
        for (Slice slice = headroomOldest; slice != null; slice = slice.headroomNewer) {
            if (slice.headroomOlder != older || !slice.headroom || !slice.resident || residentByUnit.get(slice.unit) != slice
                    || ++headroomLinked > headroomCount) {
                throw new IllegalStateException("I2: the headroom queue is broken at unit " + slice.unit);
            }
            older = slice;
        }
        if (older != headroomNewest || headroomLinked != headroomCount) {
            throw new IllegalStateException("I2: the headroom queue links " + headroomLinked + " entries but counts " + headroomCount);
        }
        long headroomSeen = 0;
        for (long unit : residentByUnit.keys()) {
            Slice slice = residentByUnit.get(unit);
            if (!slice.resident || slice.unit != unit || slice.freed) {
                throw new IllegalStateException("I2: L1 index entry for unit " + unit + " is not a live resident slice");
            }
            if (slice.headroom == policy.contains(unitIndex(slice.unit))) {
                throw new IllegalStateException("I2: unit " + slice.unit + " must be in exactly one of headroom and policy");
            }
            if (slice.headroom) headroomSeen++;
        }
        if (headroomSeen != headroomCount || policy.size() + headroomCount != residentByUnit.size()) {
            throw new IllegalStateException("I2: policy (" + policy.size() + ") + headroom (" + headroomCount
                    + ") != resident entries (" + residentByUnit.size() + ")");
        }
        // Role counts agree with their owners: leases, loads and writes.
        long leasedBytes = 0;
        for (Lease lease : leasesById.values()) {
            int promoting = 0;
            int failed = 0;
            for (LeaseUnit leaseUnit : lease.units) {
                if (leaseUnit.state != UnitState.RELEASED) leasedBytes += laneBytes;
                if (leaseUnit.state == UnitState.PROMOTING) promoting++;
                if (leaseUnit.state == UnitState.FAILED) failed++;
                if (leaseUnit.state == UnitState.HELD) {
                    int[] refs = expectedRefs.get(leaseUnit.slice);
                    if (refs == null) {
                        throw new IllegalStateException("I3: lease " + lease.leaseId + " holds a slice that was freed");
                    }
                    refs[0]++;
                    // R4: no store publishes over a range a lease still holds.
                    Slice residentNow = residentByUnit.get(leaseUnit.unit);
                    if (residentNow != null && residentNow != leaseUnit.slice) {
                        throw new IllegalStateException("R4: unit " + leaseUnit.unit + " is leased by request "
                                + lease.requestId + " but another slice was published over it");
                    }
                }
            }
            if (promoting != lease.promotingUnits || failed != lease.failedUnits) {
                throw new IllegalStateException("lease " + lease.leaseId + " counts " + lease.promotingUnits
                        + " promoting/" + lease.failedUnits + " failed but holds " + promoting + "/" + failed);
            }
            if (lease.activeLoad != null && !lease.activeLoad.borrowsReturned) {
                for (Slice slice : lease.activeLoad.borrowed) {
                    int[] refs = expectedRefs.get(slice);
                    if (refs == null) {
                        throw new IllegalStateException("I3: a borrowed slice was freed during its copy");
                    }
                    refs[1]++;
                }
            }
        }
        if (leasedBytes != leasedRemainingBytes) {
            throw new IllegalStateException("I4: lease remaining bytes " + leasedRemainingBytes + " but leases hold " + leasedBytes);
        }
        if (leasedRemainingBytes > settings.l1CapacityBytes()) {
            throw new IllegalStateException("I4: leases' remaining bytes " + leasedRemainingBytes
                    + " exceed l1CapacityBytes " + settings.l1CapacityBytes());
        }
        for (ArrayDeque<WriteOp> writes : pendingWritesByUnit.values()) {
            for (WriteOp write : writes) {
                for (Slice source : write.sources) {
                    int[] refs = expectedRefs.get(source);
                    if (refs != null && write.units.contains(source.unit)
                            && pendingWritesByUnit.get(source.unit) == writes) {
                        refs[2]++;
                    }
                }
            }
        }
        for (Map.Entry<Slice, int[]> entry : expectedRefs.entrySet()) {
            Slice slice = entry.getKey();
            int[] refs = entry.getValue();
            if (slice.leaseRefs != refs[0] || slice.borrowRefs != refs[1]) {
                throw new IllegalStateException("I3: slice at " + slice.poolOffset + " counts " + slice.leaseRefs
                        + " leases/" + slice.borrowRefs + " borrows but is held by " + refs[0] + "/" + refs[1]);
            }
            if (!hasBug(KnownBug.R2_REUSE_PENDING_WRITE_SLICE) && slice.pendingWrites != refs[2]) {
                throw new IllegalStateException("I3: slice at " + slice.poolOffset + " counts " + slice.pendingWrites
                        + " pending writes but " + refs[2] + " writes read from it");
            }
        }
        // Single flight (R6): never two live promotions of one unit.
        TreeMap<Long, Integer> promotionsPerUnit = new TreeMap<>();
        List<Promotion> livePromotions = new ArrayList<>(promotionsWaitingForSpace);
        livePromotions.addAll(readyReads);
        for (List<Promotion> waiting : promotionsWaitingForWrite.values()) {
            livePromotions.addAll(waiting);
        }
        for (Object work : inflightByTicket.valuesInTableOrder()) {
            if (work instanceof Promotion promotion) {
                livePromotions.add(promotion);
            }
        }
        for (Promotion promotion : livePromotions) {
            if (!promotion.cancelled) {
                promotionsPerUnit.merge(promotion.unit, 1, Integer::sum);
            }
        }
        // Ordered by unit, so a violation names the lowest such unit whatever order the work was found in.
        for (Map.Entry<Long, Integer> perUnit : promotionsPerUnit.entrySet()) {
            if (perUnit.getValue() > 1) {
                throw new IllegalStateException("R6: unit " + perUnit.getKey() + " has two promotions in flight (single flight)");
            }
        }
        // I9: never more than the pool.
        if (pool.usedBytes() > settings.l1CapacityBytes()) {
            throw new IllegalStateException("I9: L1 used " + pool.usedBytes() + " > capacity");
        }
    }
}
