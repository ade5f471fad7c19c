package tierlab.hunt;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import tierlab.model.KnownBug;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.geometry.ModelShape;
import tierlab.model.policy.BipPolicy;
import tierlab.model.serving.PrefetchStop;
import tierlab.model.serving.SaveTiming;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.WaitingOrder;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.L2Admission;
import tierlab.model.store.L2WritePolicy;
import tierlab.model.store.StoreSettings;

/**
 * Everything a schedule runs against besides its steps: the store's configuration, the key space
 * and, for engine-level schedules, the scheduler's limits. Small on purpose: L1 of a few blocks and
 * an L2 ring of a few slots make evictions, slot re-use and lease contention happen in a handful
 * of steps.
 *
 * @param level              STORE drives {@code TieredStore} call by call; ENGINE drives the scheduler
 * @param tp                 tensor-parallel lanes per block (1 or 2)
 * @param l1Blocks           L1 capacity in lanes of one block (so {@code l1Blocks × laneBytes} bytes)
 * @param l2Slots            L2 ring size in slots
 * @param chainCount         prompts in the key space; few means collisions, many means evictions
 * @param chainBlocks        full blocks per prompt chain
 * @param sharedPrefixBlocks blocks every chain shares with chain 0 (prefix sharing)
 * @param readers            request slots that look up, acquire, load and release (store level)
 * @param prefetchMaxRequests engine level: the prefetch bound (0 disables prefetch)
 * @param maxNumSeqs         engine level: concurrent requests
 * @param gpuKvBlocks        engine level: GPU KV blocks
 * @param knownBugs          ablation switches (empty: the fixed model)
 * @param engine             engine level: the serving engine by its registry name [vllm; absent in older replay files]
 * @param l2WritePolicy      the store's L2 write policy by its setting text [write-through]
 * @param l2Admission        the store's L2 admission filter by its setting text [none]
 * @param prefetchStop       engine level: the prefetch stop policy by its setting text [wait-complete; absent in older
 *                           replay files]
 * @param saveTiming         engine level, {@code vllm} and {@code vllm-v1}: when a step's saves must be staged, by its
 *                           setting text [after-step; absent in older replay files]
 */
public record HuntConfig(Level level, int tp, int l1Blocks, int l2Slots, String policy, boolean promotionsAsHeadroom,
                         double headroomFraction, int stagingSlots, boolean contiguousStaging, boolean batchL2Reads,
                         int ringCount, int chainCount, int chainBlocks, int sharedPrefixBlocks, int readers,
                         int prefetchMaxRequests, int maxNumSeqs, long gpuKvBlocks, Set<KnownBug> knownBugs, String engine,
                         String l2WritePolicy, String l2Admission, String prefetchStop, String saveTiming) {

    /** A configuration whose engine saves after each step (the save timing of replay files before it existed). */
    public HuntConfig(Level level, int tp, int l1Blocks, int l2Slots, String policy, boolean promotionsAsHeadroom,
                      double headroomFraction, int stagingSlots, boolean contiguousStaging, boolean batchL2Reads,
                      int ringCount, int chainCount, int chainBlocks, int sharedPrefixBlocks, int readers,
                      int prefetchMaxRequests, int maxNumSeqs, long gpuKvBlocks, Set<KnownBug> knownBugs, String engine,
                      String l2WritePolicy, String l2Admission, String prefetchStop) {
        this(level, tp, l1Blocks, l2Slots, policy, promotionsAsHeadroom, headroomFraction, stagingSlots, contiguousStaging,
                batchL2Reads, ringCount, chainCount, chainBlocks, sharedPrefixBlocks, readers, prefetchMaxRequests, maxNumSeqs,
                gpuKvBlocks, knownBugs, engine, l2WritePolicy, l2Admission, prefetchStop, null);
    }

    /** A configuration whose engine waits for every prefetch (the stop policy of replay files before it existed). */
    public HuntConfig(Level level, int tp, int l1Blocks, int l2Slots, String policy, boolean promotionsAsHeadroom,
                      double headroomFraction, int stagingSlots, boolean contiguousStaging, boolean batchL2Reads,
                      int ringCount, int chainCount, int chainBlocks, int sharedPrefixBlocks, int readers,
                      int prefetchMaxRequests, int maxNumSeqs, long gpuKvBlocks, Set<KnownBug> knownBugs, String engine,
                      String l2WritePolicy, String l2Admission) {
        this(level, tp, l1Blocks, l2Slots, policy, promotionsAsHeadroom, headroomFraction, stagingSlots, contiguousStaging,
                batchL2Reads, ringCount, chainCount, chainBlocks, sharedPrefixBlocks, readers, prefetchMaxRequests, maxNumSeqs,
                gpuKvBlocks, knownBugs, engine, l2WritePolicy, l2Admission, null);
    }

    /** A configuration for the {@code vllm} engine and the default store write path (write-through, no admission filter). */
    public HuntConfig(Level level, int tp, int l1Blocks, int l2Slots, String policy, boolean promotionsAsHeadroom,
                      double headroomFraction, int stagingSlots, boolean contiguousStaging, boolean batchL2Reads,
                      int ringCount, int chainCount, int chainBlocks, int sharedPrefixBlocks, int readers,
                      int prefetchMaxRequests, int maxNumSeqs, long gpuKvBlocks, Set<KnownBug> knownBugs) {
        this(level, tp, l1Blocks, l2Slots, policy, promotionsAsHeadroom, headroomFraction, stagingSlots, contiguousStaging,
                batchL2Reads, ringCount, chainCount, chainBlocks, sharedPrefixBlocks, readers, prefetchMaxRequests, maxNumSeqs,
                gpuKvBlocks, knownBugs, null, null, null);
    }

    public enum Level { STORE, ENGINE }

    /** 512 B per token and 16-token blocks: 8 KiB blocks keep real-byte runs small. */
    public static final ModelShape TINY = ModelShape.TINY;
    public static final int BLOCK_TOKENS = 16;

    /**
     * The largest key space, L1, L2 ring, slot counts and GPU pool a config may name: generated configs
     * stay in the tens, and a replay file is refused before a config of 10^8 chains builds its key space
     * (108 s, then an OutOfMemoryError, before these limits).
     */
    public static final long MAX_KEYS = 1_000_000;
    public static final int MAX_BLOCKS = 1_000_000;
    public static final int MAX_SLOTS = 10_000;
    public static final long MAX_GPU_BLOCKS = 10_000_000;

    public HuntConfig {
        knownBugs = knownBugs == null ? Set.of() : Set.copyOf(knownBugs);
        // Replay files from before engines were named ran the vllm engine, whatever the default becomes.
        engine = engine == null ? ServingEngines.VLLM : engine;
        if (!ServingEngines.names().contains(engine)) {
            throw new IllegalArgumentException(ServingEngines.REGISTRY.unknown("engine", engine));
        }
        // Replay files written before the write policies existed have neither field: today's store.
        l2WritePolicy = L2WritePolicy.parse(l2WritePolicy == null ? "write-through" : l2WritePolicy).label();
        l2Admission = L2Admission.parse(l2Admission == null ? "none" : l2Admission).label();
        prefetchStop = PrefetchStop.parse(prefetchStop == null ? "wait-complete" : prefetchStop).settingText();
        saveTiming = SaveTiming.parse(saveTiming == null ? "after-step" : saveTiming).settingName();
        if (level == null) {
            throw new IllegalArgumentException("level must be STORE or ENGINE");
        }
        positive("tp", tp);
        positive("l1Blocks", l1Blocks);
        positive("l2Slots", l2Slots);
        positive("chainCount", chainCount);
        positive("chainBlocks", chainBlocks);
        positive("readers", readers);
        positive("maxNumSeqs", maxNumSeqs);
        atMost("l1Blocks", l1Blocks, MAX_BLOCKS);
        atMost("l2Slots", l2Slots, MAX_BLOCKS);
        atMost("chainCount × chainBlocks (keys)", (long) chainCount * chainBlocks, MAX_KEYS);
        atMost("readers", readers, MAX_SLOTS);
        atMost("maxNumSeqs", maxNumSeqs, MAX_SLOTS);
        atMost("stagingSlots", stagingSlots, MAX_SLOTS);
        atMost("ringCount", ringCount, MAX_SLOTS);
        atMost("gpuKvBlocks", gpuKvBlocks, MAX_GPU_BLOCKS);
        if (sharedPrefixBlocks < 0 || sharedPrefixBlocks >= chainBlocks) {
            throw new IllegalArgumentException("sharedPrefixBlocks " + sharedPrefixBlocks + " must be below chainBlocks " + chainBlocks);
        }
    }

    private static void atMost(String field, long value, long limit) {
        if (value > limit) {
            throw new IllegalArgumentException(String.format(java.util.Locale.ROOT, "%s is %,d, above the hunt's limit of %,d"
                    + " (hunt configs are small on purpose)", field, value, limit));
        }
    }

    private static void positive(String field, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(field + " must be positive, was " + value);
        }
    }

    public Geometry geometry() {
        return new Geometry(TINY, BLOCK_TOKENS, tp);
    }

    public long laneBytes() {
        return geometry().laneBytes();
    }

    public StoreSettings storeSettings() {
        Geometry geometry = geometry();
        // bip inserts at the most-recent end every 4th time (not the default 32): with L1 of a few
        // blocks, 32 would make bip an almost pure least-recent-insertion policy.
        return StoreSettings.builder(geometry, l1Blocks * geometry.laneBytes(), (long) l2Slots * geometry.blockBytes())
                .policy(policy).policyParameter(BipPolicy.MRU_INTERVAL.name(), 4).promotionsAsHeadroom(promotionsAsHeadroom)
                .headroomFraction(headroomFraction).ringCount(ringCount).batchL2Reads(batchL2Reads)
                .stagingSlots(stagingSlots).contiguousStaging(contiguousStaging).knownBugs(knownBugs)
                .l2WritePolicy(L2WritePolicy.parse(l2WritePolicy)).l2Admission(L2Admission.parse(l2Admission)).build();
    }

    public SchedulerSettings schedulerSettings() {
        SchedulerSettings settings = SchedulerSettings.builder(gpuKvBlocks).maxNumSeqs(maxNumSeqs).maxBatchedTokens(256)
                .prefetchMaxRequests(prefetchMaxRequests).allL1Bypass(false).engine(engine)
                .prefetchStop(PrefetchStop.parse(prefetchStop)).saveTiming(SaveTiming.parse(saveTiming)).build();
        return ServingEngines.SGLANG.equals(engine) ? withSglangPolicies(settings) : settings;
    }

    /**
     * sglang's GPU→store write policy and prefetch stop, each of its three kinds, picked from values the
     * schedule already drew (not drawn themselves: a draw would re-draw every pinned seed after it).
     */
    private SchedulerSettings withSglangPolicies(SchedulerSettings settings) {
        L2WritePolicy[] writes = {L2WritePolicy.WRITE_THROUGH, L2WritePolicy.writeAfterHits(2), L2WritePolicy.WRITE_BACK};
        // The hunt's clock moves 1 µs per completion: a 3 µs timeout stops some prefetches, not all.
        PrefetchStop[] stops = {PrefetchStop.WAIT_COMPLETE, PrefetchStop.BEST_EFFORT, PrefetchStop.timeout(3_000, 1_000)};
        return settings.withHostWritePolicy(writes[Math.floorMod(chainCount + l1Blocks, writes.length)])
                .withPrefetchStop(stops[Math.floorMod(l2Slots + (int) gpuKvBlocks, stops.length)])
                .withWaitingOrder(Math.floorMod(readers, 2) == 0 ? WaitingOrder.LPM : WaitingOrder.FCFS);
    }

    public HuntConfig withKnownBugs(Set<KnownBug> bugs) {
        return new HuntConfig(level, tp, l1Blocks, l2Slots, policy, promotionsAsHeadroom, headroomFraction, stagingSlots,
                contiguousStaging, batchL2Reads, ringCount, chainCount, chainBlocks, sharedPrefixBlocks, readers,
                prefetchMaxRequests, maxNumSeqs, gpuKvBlocks, bugs, engine, l2WritePolicy, l2Admission, prefetchStop,
                saveTiming);
    }

    /** The prompt chains: chain c shares its first {@code sharedPrefixBlocks} keys with chain 0. */
    public List<List<BlockKey>> chains() {
        List<List<BlockKey>> chains = new ArrayList<>();
        for (int c = 0; c < chainCount; c++) {
            List<BlockKey> chain = new ArrayList<>();
            if (c > 0) {
                chain.addAll(chains.get(0).subList(0, sharedPrefixBlocks));
            }
            BlockKey parent = chain.isEmpty() ? BlockKey.ROOT : chain.get(chain.size() - 1);
            while (chain.size() < chainBlocks) {
                parent = BlockKey.fromTraceId(parent, 7_000 + c, chain.size());
                chain.add(parent);
            }
            chains.add(List.copyOf(chain));
        }
        return chains;
    }
}
