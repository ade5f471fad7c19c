package tierlab.model.store;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import tierlab.model.KnownBug;
import tierlab.model.Settings;
import tierlab.model.geometry.Geometry;
import tierlab.model.policy.BipPolicy;
import tierlab.model.policy.Policies;
import tierlab.model.policy.PolicyCapability;
import tierlab.model.policy.PolicyOptions;
import tierlab.model.policy.PolicyParameters;

/**
 * Every knob of the tiered store, with the reference system's defaults (numbers in brackets).
 * Validation happens here so a bad value fails with a message naming the setting. Build and copy
 * it through {@link #builder} and {@link #toBuilder()}: a new knob is one component and one builder
 * line, and no caller spells the components out in order.
 *
 * @param l1CapacityBytes        pinned host pool size; a multiple of 4 KiB
 * @param l2CapacityBytes        L2 file size; holds {@code l2CapacityBytes / blockBytes} slots
 * @param policy                 L1 replacement policy name ({@code lru}, {@code bip}, ...), one of {@link Policies#names()}
 * @param policyParameters       the policies' knobs (e.g. {@code bip}'s mruInterval [32]); unset ones read as their defaults
 * @param promotionsAsHeadroom   promotions become headroom entries, evicted first and allowed to fill L1 [true]
 * @param headroomFraction       save-admission headroom as a fraction of L1 [0.05]
 * @param ringCount              most L2 reads grouped into one submission batch [8]
 * @param batchL2Reads           group L2 reads into batches (false: one submission per read)
 * @param writeBatchMaxBytes     largest contiguous L2 write of a grouped store [64 MiB]
 * @param stagingSlots           concurrent GPU → L1 staging copies (FIFO semaphore)
 * @param contiguousStaging      stage a grouped store's adjacent slots in one L1 span (false: per slot)
 * @param knownBugs              races to re-introduce (ablation); empty by default
 * @param futureReferences       for a policy that needs the future: the unit reference stream of a previous run, else null
 * @param l2WritePolicy          when a committed block is written to L2 [write-through] ({@link L2WritePolicy})
 * @param l2Admission            the filter a block must pass for its L2 write [none] ({@link L2Admission})
 */
public record StoreSettings(Geometry geometry, long l1CapacityBytes, long l2CapacityBytes, String policy,
                            PolicyParameters policyParameters, boolean promotionsAsHeadroom, double headroomFraction,
                            int ringCount, boolean batchL2Reads, long writeBatchMaxBytes, int stagingSlots,
                            boolean contiguousStaging, Set<KnownBug> knownBugs, long[] futureReferences,
                            L2WritePolicy l2WritePolicy, L2Admission l2Admission) {

    public static final long MIB = 1L << 20;
    public static final long GIB = 1L << 30;

    public StoreSettings {
        if (geometry == null) {
            throw new IllegalArgumentException("geometry must be set");
        }
        Settings.pageAligned("l1CapacityBytes", l1CapacityBytes);
        Settings.positive("l2CapacityBytes", l2CapacityBytes);
        if (l2CapacityBytes < geometry.blockBytes()) {
            throw new IllegalArgumentException("l2CapacityBytes must hold at least one block of "
                    + geometry.blockBytes() + " bytes, was " + l2CapacityBytes);
        }
        if (l1CapacityBytes < geometry.laneBytes()) {
            throw new IllegalArgumentException("l1CapacityBytes must hold at least one block lane of "
                    + geometry.laneBytes() + " bytes, was " + l1CapacityBytes);
        }
        if (policy == null || policy.isBlank()) {
            throw new IllegalArgumentException("policy must be set");
        }
        if (!Policies.names().contains(policy)) {
            throw new IllegalArgumentException("policy: unknown policy '" + policy + "' (known: "
                    + String.join(", ", Policies.names()) + ")");
        }
        if (Policies.has(policy, PolicyCapability.NEEDS_FUTURE_REFERENCES) && futureReferences == null) {
            throw new IllegalArgumentException("policy '" + policy
                    + "' needs futureReferences (the future reference stream)");
        }
        policyParameters = policyParameters == null ? PolicyParameters.defaults() : policyParameters;
        if (!(headroomFraction >= 0 && headroomFraction < 1)) {
            throw new IllegalArgumentException("headroomFraction must be in [0, 1), was " + headroomFraction);
        }
        Settings.positive("ringCount", ringCount);
        Settings.pageAligned("writeBatchMaxBytes", writeBatchMaxBytes);
        Settings.positive("stagingSlots", stagingSlots);
        l2WritePolicy = l2WritePolicy == null ? L2WritePolicy.WRITE_THROUGH : l2WritePolicy;
        l2Admission = l2Admission == null ? L2Admission.NONE : l2Admission;
        // An EnumSet: has() is asked on hot paths (inside eviction scans), and a bit test is cheap.
        knownBugs = Collections.unmodifiableSet(knownBugs == null || knownBugs.isEmpty()
                ? EnumSet.noneOf(KnownBug.class) : EnumSet.copyOf(knownBugs));
    }

    /** A builder with the reference defaults for a geometry and the two capacities. */
    public static Builder builder(Geometry geometry, long l1CapacityBytes, long l2CapacityBytes) {
        return new Builder(geometry, l1CapacityBytes, l2CapacityBytes);
    }

    /** The reference defaults for a geometry and the two capacities. */
    public static StoreSettings defaults(Geometry geometry, long l1CapacityBytes, long l2CapacityBytes) {
        return builder(geometry, l1CapacityBytes, l2CapacityBytes).build();
    }

    /** A builder holding these settings, to change a few and build a copy. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    public long slotCount() {
        return l2CapacityBytes / geometry.blockBytes();
    }

    /** headroom = min(L1, roundup_4KiB(max(4096, ceil(L1 × fraction)))) */
    public long headroomBytes() {
        long fractionBytes = (long) Math.ceil(l1CapacityBytes * headroomFraction);
        return Math.min(l1CapacityBytes, Settings.roundUpToPage(Math.max(Settings.PAGE_BYTES, fractionBytes)));
    }

    /** high_water = L1 − headroom: save admission trims L1 down to here. */
    public long highWaterBytes() {
        return l1CapacityBytes - headroomBytes();
    }

    public boolean has(KnownBug bug) {
        return knownBugs.contains(bug);
    }

    /**
     * The options the replacement policy is built from: every knob, generically, so a new policy's
     * knob reaches it without a change here or in the store.
     */
    public PolicyOptions policyOptions(long capacityEntries, long[] futureKeys) {
        return new PolicyOptions(capacityEntries, policyParameters, futureKeys);
    }

    /**
     * {@code bip}'s interval. Only for the store's constructor, which still builds its policy options
     * from this one knob; once it calls {@link #policyOptions} this accessor can go.
     */
    public int mruInterval() {
        return policyParameters.get(BipPolicy.MRU_INTERVAL);
    }

    public StoreSettings withPolicy(String newPolicy) {
        return toBuilder().policy(newPolicy).build();
    }

    public StoreSettings withPromotionsAsHeadroom(boolean asHeadroom) {
        return toBuilder().promotionsAsHeadroom(asHeadroom).build();
    }

    public StoreSettings withKnownBugs(Set<KnownBug> bugs) {
        return toBuilder().knownBugs(bugs).build();
    }

    public StoreSettings withStaging(int slots, boolean contiguous) {
        return toBuilder().stagingSlots(slots).contiguousStaging(contiguous).build();
    }

    public StoreSettings withReadBatching(int rings, boolean batched) {
        return toBuilder().ringCount(rings).batchL2Reads(batched).build();
    }

    public StoreSettings withHeadroomFraction(double fraction) {
        return toBuilder().headroomFraction(fraction).build();
    }

    /** Collects knobs; {@link #build()} validates them all at once through the record's constructor. */
    public static final class Builder {
        private Geometry geometry;
        private long l1CapacityBytes;
        private long l2CapacityBytes;
        private String policy = "lru";
        private PolicyParameters policyParameters = PolicyParameters.defaults();
        private boolean promotionsAsHeadroom = true;
        private double headroomFraction = 0.05;
        private int ringCount = 8;
        private boolean batchL2Reads = true;
        private long writeBatchMaxBytes = 64 * MIB;
        private int stagingSlots = 4;
        private boolean contiguousStaging = true;
        private Set<KnownBug> knownBugs = Set.of();
        private long[] futureReferences;
        private L2WritePolicy l2WritePolicy = L2WritePolicy.WRITE_THROUGH;
        private L2Admission l2Admission = L2Admission.NONE;

        private Builder(Geometry geometry, long l1CapacityBytes, long l2CapacityBytes) {
            this.geometry = geometry;
            this.l1CapacityBytes = l1CapacityBytes;
            this.l2CapacityBytes = l2CapacityBytes;
        }

        private Builder(StoreSettings from) {
            this(from.geometry, from.l1CapacityBytes, from.l2CapacityBytes);
            policy = from.policy;
            policyParameters = from.policyParameters;
            promotionsAsHeadroom = from.promotionsAsHeadroom;
            headroomFraction = from.headroomFraction;
            ringCount = from.ringCount;
            batchL2Reads = from.batchL2Reads;
            writeBatchMaxBytes = from.writeBatchMaxBytes;
            stagingSlots = from.stagingSlots;
            contiguousStaging = from.contiguousStaging;
            knownBugs = from.knownBugs;
            futureReferences = from.futureReferences;
            l2WritePolicy = from.l2WritePolicy;
            l2Admission = from.l2Admission;
        }

        public Builder geometry(Geometry value) { geometry = value; return this; }
        public Builder l1CapacityBytes(long value) { l1CapacityBytes = value; return this; }
        public Builder l2CapacityBytes(long value) { l2CapacityBytes = value; return this; }
        public Builder policy(String value) { policy = value; return this; }
        public Builder policyParameters(PolicyParameters value) { policyParameters = value; return this; }
        /** Sets one policy knob by its declared name (checked against the registry at once). */
        public Builder policyParameter(String name, Object value) { policyParameters = policyParameters.with(name, value); return this; }
        public Builder promotionsAsHeadroom(boolean value) { promotionsAsHeadroom = value; return this; }
        public Builder headroomFraction(double value) { headroomFraction = value; return this; }
        public Builder ringCount(int value) { ringCount = value; return this; }
        public Builder batchL2Reads(boolean value) { batchL2Reads = value; return this; }
        public Builder writeBatchMaxBytes(long value) { writeBatchMaxBytes = value; return this; }
        public Builder stagingSlots(int value) { stagingSlots = value; return this; }
        public Builder contiguousStaging(boolean value) { contiguousStaging = value; return this; }
        public Builder knownBugs(Set<KnownBug> value) { knownBugs = value; return this; }
        public Builder futureReferences(long[] value) { futureReferences = value; return this; }
        public Builder l2WritePolicy(L2WritePolicy value) { l2WritePolicy = value; return this; }
        public Builder l2Admission(L2Admission value) { l2Admission = value; return this; }

        public StoreSettings build() {
            return new StoreSettings(geometry, l1CapacityBytes, l2CapacityBytes, policy, policyParameters,
                    promotionsAsHeadroom, headroomFraction, ringCount, batchL2Reads, writeBatchMaxBytes, stagingSlots,
                    contiguousStaging, knownBugs, futureReferences, l2WritePolicy, l2Admission);
        }
    }
}
