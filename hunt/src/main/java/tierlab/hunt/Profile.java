package tierlab.hunt;

import java.util.List;

/**
 * The shape of the schedules a generator draws for one target: ranges for the configuration and
 * the relative weights of the step kinds. {@code swarm} re-draws every weight per schedule (some to
 * zero), so different schedules stress different mixes of operations; targeted profiles keep the
 * weights near the mix that reaches their race and only jitter them.
 *
 * <p>Weights, in order: complete, lookup, acquire, load, release, save, preempt (store level), or
 * complete, arrive, preempt (engine level). {@code failPercent} is the largest share of completions
 * delivered as failures.
 */
public record Profile(String name, HuntConfig.Level level, int[] tp, int[] l1Blocks, int[] l2Slots, int[] chainCount,
                      int[] chainBlocks, int[] readers, int[] prefetchMaxRequests, int[] weights, boolean swarm, int failPercent,
                      int minSteps, int maxSteps, boolean ampleGpuBlocks, String engine, String l2WritePolicy,
                      String l2Admission, String prefetchStop, String saveTiming) {

    /** A profile whose engine saves after each step ({@code after-step}). */
    public Profile(String name, HuntConfig.Level level, int[] tp, int[] l1Blocks, int[] l2Slots, int[] chainCount,
                   int[] chainBlocks, int[] readers, int[] prefetchMaxRequests, int[] weights, boolean swarm, int failPercent,
                   int minSteps, int maxSteps, boolean ampleGpuBlocks, String engine, String l2WritePolicy,
                   String l2Admission, String prefetchStop) {
        this(name, level, tp, l1Blocks, l2Slots, chainCount, chainBlocks, readers, prefetchMaxRequests, weights, swarm,
                failPercent, minSteps, maxSteps, ampleGpuBlocks, engine, l2WritePolicy, l2Admission, prefetchStop, "after-step");
    }

    /** A profile whose engine waits for every prefetch ({@code wait-complete}). */
    public Profile(String name, HuntConfig.Level level, int[] tp, int[] l1Blocks, int[] l2Slots, int[] chainCount,
                   int[] chainBlocks, int[] readers, int[] prefetchMaxRequests, int[] weights, boolean swarm, int failPercent,
                   int minSteps, int maxSteps, boolean ampleGpuBlocks, String engine, String l2WritePolicy,
                   String l2Admission) {
        this(name, level, tp, l1Blocks, l2Slots, chainCount, chainBlocks, readers, prefetchMaxRequests, weights, swarm,
                failPercent, minSteps, maxSteps, ampleGpuBlocks, engine, l2WritePolicy, l2Admission, "wait-complete");
    }

    /**
     * A profile for the {@code vllm} serving engine (the one its seeds were pinned on, not the experiment
     * files' default {@code vllm-v1}, which has its own profile) and the default store write path. The
     * engine, the write policy and the admission filter are the profile's, not drawn: a draw would shift
     * every later draw of a schedule and so re-draw the pinned seeds of the existing profiles.
     */
    public Profile(String name, HuntConfig.Level level, int[] tp, int[] l1Blocks, int[] l2Slots, int[] chainCount,
                   int[] chainBlocks, int[] readers, int[] prefetchMaxRequests, int[] weights, boolean swarm, int failPercent,
                   int minSteps, int maxSteps, boolean ampleGpuBlocks) {
        this(name, level, tp, l1Blocks, l2Slots, chainCount, chainBlocks, readers, prefetchMaxRequests, weights, swarm,
                failPercent, minSteps, maxSteps, ampleGpuBlocks, null, "write-through", "none");
    }

    /** Without {@code ampleGpuBlocks}: GPU KV blocks from just enough for one request to a few more. */
    public Profile(String name, HuntConfig.Level level, int[] tp, int[] l1Blocks, int[] l2Slots, int[] chainCount,
                   int[] chainBlocks, int[] readers, int[] prefetchMaxRequests, int[] weights, boolean swarm, int failPercent,
                   int minSteps, int maxSteps) {
        this(name, level, tp, l1Blocks, l2Slots, chainCount, chainBlocks, readers, prefetchMaxRequests, weights, swarm,
                failPercent, minSteps, maxSteps, false);
    }

    /**
     * The store's write policies and admission filters (docs/policies.md, "Races of the write
     * policies"), at engine level: requests save, come back and find their blocks in L1, on L2 or
     * gone, under swarm weights and failed I/O. Engine level because the store-level reference model
     * writes through; the checks that hold for every policy (invariants with W1, payloads I6, the L2
     * and dirty L1 bytes I7, liveness I10) are the engine runner's.
     */
    public static List<Profile> writePolicies() {
        HuntConfig.Level engine = HuntConfig.Level.ENGINE;
        return List.of(
                new Profile("write-back", engine, r(1, 2), r(1, 6), r(2, 12), r(1, 8), r(1, 4), r(2, 4), r(0, 3),
                        ENGINE_MIX, true, 20, 4, 70, false, null, "write-back", "none"),
                new Profile("write-after-hits", engine, r(1, 2), r(1, 6), r(2, 12), r(1, 6), r(1, 4), r(2, 4), r(0, 3),
                        ENGINE_MIX, true, 20, 4, 70, false, null, "write-after-hits:1", "none"),
                new Profile("write-back-doorkeeper", engine, r(1, 2), r(1, 6), r(2, 12), r(1, 6), r(1, 4), r(2, 4), r(0, 3),
                        ENGINE_MIX, true, 20, 4, 70, false, null, "write-back", "doorkeeper"),
                new Profile("write-through-frequency", engine, r(1, 2), r(1, 6), r(2, 12), r(1, 6), r(1, 4), r(2, 4), r(0, 3),
                        ENGINE_MIX, true, 20, 4, 70, false, null, "write-through", "frequency:2"));
    }

    /**
     * The prefetch stop policies (docs/policies.md, "Prefetch stop policies"), at engine level: requests
     * prefetch L2 hits and stop waiting for them part-way (best-effort at the next step; a timeout of a
     * few completions, the hunt's clock moving 1 µs per completion), under swarm weights, failed reads and
     * preemptions, for both vLLM-like engines. A read landing after its request stopped waiting must
     * never be served to it nor pin a slice for it (invariants with P1), and the payload ledger (I6, I7)
     * and liveness (I10) hold as for every engine profile. The policy is the profile's, not drawn, so the
     * pinned seeds of the other profiles keep their schedules.
     */
    public static List<Profile> prefetchStops() {
        HuntConfig.Level engine = HuntConfig.Level.ENGINE;
        return List.of(
                new Profile("prefetch-best-effort", engine, r(1, 2), r(2, 10), r(2, 16), r(1, 6), r(1, 4), r(2, 4), r(1, 3),
                        ENGINE_MIX, true, 20, 4, 70, false, null, "write-through", "none", "best-effort"),
                new Profile("prefetch-timeout", engine, r(1, 2), r(2, 10), r(2, 16), r(1, 6), r(1, 4), r(2, 4), r(1, 3),
                        ENGINE_MIX, true, 20, 4, 70, false, null, "write-through", "none", "timeout:0.003+0.002"),
                new Profile("prefetch-timeout-vllm-v1", engine, r(1, 2), r(2, 10), r(2, 16), r(1, 6), r(1, 4), r(2, 4), r(1, 3),
                        ENGINE_MIX, true, 20, 4, 70, false, "vllm-v1", "write-through", "none", "timeout:0.002+0"));
    }

    /**
     * The save timing of vLLM's KV connector ({@code saveTiming: in-step}, docs/engines.md "Save timing"), at
     * engine level, for both vLLM-like engines: a step that completes prompts ends only once their saves are
     * staged, under swarm weights, failed copies and writes, preemptions while a step is held, tight L1 (a
     * held step's saves waiting for space and leases) and GPU-block pressure. Checked after every step: the
     * engine's invariants (a step is held exactly while its phase says so, its completed prompts have
     * emitted nothing and have their saves queued), the payload ledger (I6, I7) and liveness (I10: a held
     * step that never ends leaves requests unfinished). The timing is the profile's, not drawn, so the
     * pinned seeds of the other profiles keep their schedules.
     */
    public static List<Profile> saveInStep() {
        HuntConfig.Level engine = HuntConfig.Level.ENGINE;
        return List.of(
                new Profile("save-in-step", engine, r(1, 2), r(1, 8), r(2, 16), r(1, 6), r(1, 4), r(2, 4), r(0, 3),
                        ENGINE_MIX, true, 20, 4, 70, false, null, "write-through", "none", "wait-complete", "in-step"),
                new Profile("save-in-step-vllm-v1", engine, r(1, 2), r(1, 8), r(2, 16), r(1, 6), r(1, 4), r(2, 4), r(0, 3),
                        ENGINE_MIX, true, 20, 4, 70, false, "vllm-v1", "write-through", "none", "best-effort", "in-step"));
    }

    /**
     * Liveness (I10) under lease churn: engine level, frequent preemptions and failed I/O, a bounded
     * number of arrivals, and GPU KV blocks for every admitted request at once, so that progress
     * depends on the store's leases, reservations and waits alone.
     */
    public static Profile liveness() {
        return new Profile("liveness", HuntConfig.Level.ENGINE, r(1, 2), r(1, 6), r(2, 12), r(1, 8), r(1, 4), r(2, 4), r(0, 3),
                new int[] {10, 3, 3}, true, 30, 4, 60, true);
    }

    /**
     * The same under GPU-block pressure (from just enough blocks for one request): progress also
     * depends on the scheduler's recompute preemption, where the hunt found a livelock (F2, fixed;
     * replay {@code replays/fixed/F2-preemption-livelock.json}).
     */
    public static Profile livenessUnderGpuPressure() {
        return new Profile("liveness-gpu-pressure", HuntConfig.Level.ENGINE, r(1, 2), r(1, 6), r(2, 12), r(1, 8), r(1, 4), r(2, 4),
                r(0, 3), new int[] {10, 3, 3}, true, 30, 4, 60, false);
    }

    /**
     * The {@code vllm-v1} engine with its GPU prefix cache on, under GPU-block pressure: the swarm engine
     * mix over few chains with shared prefixes, so requests hit each other's cached blocks, evict them and
     * are preempted while sharing them. Checked after every step besides the engine and store invariants
     * and the payload ledger: G1 (no GPU block is handed out while its reference count is above zero;
     * references are exactly the requests' block lists and the blocks held for staging) and G2 (a cached
     * block is reused only under its own key). Staging copies and loads that read or write a block the
     * cache handed to the wrong request show up in the ledger as wrong bytes.
     */
    public static Profile vllmV1() {
        return new Profile("swarm-engine-vllm-v1", HuntConfig.Level.ENGINE, r(1, 2), r(2, 10), r(2, 16), r(1, 6), r(1, 4), r(2, 4),
                r(0, 3), ENGINE_MIX, true, 20, 4, 70, false, "vllm-v1", "write-through", "none");
    }

    /**
     * The {@code sglang} engine under GPU-page pressure over chains sharing prefixes, the swarm engine mix:
     * requests match each other's pages in the radix tree, lock them, evict unlocked leaves, are retracted,
     * and save pages by each GPU→store write policy, with each prefetch stop policy (picked per schedule,
     * {@link HuntConfig#schedulerSettings()}). Checked after every step besides the store invariants and the
     * payload ledger: S1 (every GPU block in exactly one place), S2 (a page is used only under its own key),
     * S3 (lock counts are exactly the requests' and saves' locks, so a locked page is never evicted; the
     * tree's structure and evictable set) and S4 (phases and queues). A save or load touching a page the
     * tree gave to another key shows in the ledger as wrong bytes.
     */
    public static Profile sglang() {
        return new Profile("swarm-engine-sglang", HuntConfig.Level.ENGINE, r(1, 2), r(2, 10), r(2, 16), r(1, 6), r(1, 4), r(2, 4),
                r(0, 3), ENGINE_MIX, true, 20, 4, 70, false, "sglang", "write-through", "none");
    }

    /**
     * {@link #sglang()} over a store that writes L1 to L2 back on eviction (and after hits): HiCache's
     * host→storage step follows {@code store.l2WritePolicy}, so the engine's GPU→host saves meet dirty L1
     * units, write-backs and dropped blocks as well.
     */
    public static List<Profile> sglangStoreWritePolicies() {
        return List.of(
                new Profile("swarm-engine-sglang-store-write-back", HuntConfig.Level.ENGINE, r(1, 2), r(1, 6), r(2, 12), r(1, 6),
                        r(1, 4), r(2, 4), r(0, 3), ENGINE_MIX, true, 20, 4, 70, false, "sglang", "write-back", "none"),
                new Profile("swarm-engine-sglang-store-write-after-hits", HuntConfig.Level.ENGINE, r(1, 2), r(1, 6), r(2, 12),
                        r(1, 6), r(1, 4), r(2, 4), r(0, 3), ENGINE_MIX, true, 20, 4, 70, false, "sglang", "write-after-hits:1",
                        "none"));
    }

    static int[] r(int from, int to) {
        return new int[] {from, to};
    }

    static final int[] STORE_MIX = {10, 4, 3, 3, 3, 4, 1};
    static final int[] ENGINE_MIX = {12, 3, 1};

    /** Everything at once: swarm weights, both key-space shapes (few chains collide, many evict). */
    public static Profile swarm(HuntConfig.Level level) {
        return level == HuntConfig.Level.STORE
                ? new Profile("swarm-store", level, r(1, 2), r(2, 8), r(2, 12), r(1, 16), r(1, 4), r(2, 4), r(0, 0), STORE_MIX, true, 25, 4, 70)
                : new Profile("swarm-engine", level, r(1, 2), r(2, 10), r(2, 16), r(1, 12), r(1, 4), r(2, 4), r(0, 3), ENGINE_MIX, true, 20, 4, 70);
    }

    /** The profile whose schedules reach a race's interleaving: tight L1 and L2 so slots and slices are reused fast. */
    public static Profile forRace(String raceId) {
        HuntConfig.Level store = HuntConfig.Level.STORE;
        return switch (raceId) {
            // An outdated lookup acquired after the ring gave its slot to a newer store.
            case "R1" -> new Profile("R1", store, r(1, 1), r(1, 2), r(1, 3), r(2, 4), r(1, 1), r(1, 1), r(0, 0), new int[] {6, 4, 4, 2, 1, 5, 0}, false, 0, 10, 60);
            // Evictions while writes are pending: one-block L1, many saves.
            case "R2" -> new Profile("R2", store, r(1, 1), r(1, 3), r(2, 6), r(2, 6), r(1, 2), r(2, 4), r(0, 0), new int[] {8, 3, 2, 2, 2, 5, 0}, false, 0, 6, 40);
            // Two writes to one range: the ring reuses a slot while its previous write is in flight.
            case "R3" -> new Profile("R3", store, r(1, 1), r(2, 4), r(1, 3), r(2, 6), r(1, 2), r(2, 4), r(0, 0), new int[] {8, 1, 1, 1, 1, 6, 0}, false, 0, 6, 40);
            // A lease on a range that a newer store targets.
            case "R4" -> new Profile("R4", store, r(1, 1), r(2, 6), r(1, 3), r(2, 5), r(1, 2), r(2, 4), r(0, 0), new int[] {8, 5, 2, 2, 2, 5, 0}, false, 0, 6, 40);
            // Leases that together exceed L1.
            case "R5" -> new Profile("R5", store, r(1, 2), r(2, 4), r(4, 10), r(1, 3), r(2, 4), r(2, 4), r(0, 0), new int[] {6, 5, 5, 1, 1, 4, 0}, false, 0, 6, 40);
            // Two prefetches of one range.
            case "R6" -> new Profile("R6", store, r(1, 1), r(2, 6), r(2, 8), r(1, 3), r(1, 3), r(2, 4), r(0, 0), new int[] {6, 5, 5, 1, 1, 3, 0}, false, 0, 6, 40);
            // Failed and cancelled promotions.
            case "R7" -> new Profile("R7", store, r(1, 1), r(2, 6), r(2, 8), r(1, 3), r(1, 3), r(2, 4), r(0, 0), new int[] {8, 4, 4, 1, 3, 3, 0}, false, 40, 6, 40);
            // A load cancelled during its GPU copy, then a store that needs the memory.
            case "R8" -> new Profile("R8", store, r(1, 1), r(1, 2), r(2, 8), r(2, 4), r(1, 1), r(2, 4), r(0, 0), new int[] {8, 5, 1, 5, 4, 4, 0}, false, 0, 6, 40);
            // A batch of reads with one failure, cancelled while the others are in flight.
            case "R9" -> new Profile("R9", store, r(1, 1), r(2, 4), r(4, 8), r(1, 2), r(2, 3), r(1, 2), r(0, 0), new int[] {8, 4, 4, 1, 5, 4, 0}, false, 10, 6, 40);
            // Preemption with saves still queued.
            case "R10" -> new Profile("R10", store, r(1, 2), r(1, 4), r(2, 10), r(2, 6), r(1, 4), r(2, 4), r(0, 0), new int[] {8, 1, 1, 1, 1, 5, 4}, false, 0, 6, 40);
            // Old stores for slots the ring re-allocated.
            case "R11" -> new Profile("R11", store, r(1, 1), r(1, 4), r(1, 3), r(2, 6), r(1, 3), r(2, 4), r(0, 0), new int[] {8, 3, 2, 2, 2, 6, 0}, false, 0, 6, 40);
            // tp = 2: one lane committed, the other not yet.
            case "R12" -> new Profile("R12", store, r(2, 2), r(2, 8), r(2, 8), r(1, 4), r(1, 3), r(2, 4), r(0, 0), new int[] {8, 5, 2, 2, 2, 4, 0}, false, 0, 6, 40);
            // More mixed/l2 requests than the prefetch bound, at engine level.
            case "R13" -> new Profile("R13", HuntConfig.Level.ENGINE, r(1, 1), r(2, 8), r(4, 16), r(1, 4), r(1, 4), r(2, 4), r(1, 2), new int[] {10, 5, 0}, false, 0, 6, 50);
            // Write-back: a request's blocks are evicted from a tight L1 (written back), and a request
            // for the same prompt promotes them while those writes are still in flight.
            case "W1" -> new Profile("W1", HuntConfig.Level.ENGINE, r(1, 1), r(1, 3), r(4, 12), r(1, 3), r(1, 3), r(2, 4), r(1, 2),
                    new int[] {8, 5, 0}, false, 0, 6, 50, false, null, "write-back", "none");
            // Prefetch stop: requests for the same few prompts prefetch from L2 and stop at the next step,
            // while the reads they stopped waiting for are still in flight.
            case "P1" -> new Profile("P1", HuntConfig.Level.ENGINE, r(1, 1), r(2, 8), r(4, 16), r(1, 3), r(2, 4), r(2, 4), r(1, 2),
                    new int[] {10, 5, 0}, false, 0, 6, 50, false, null, "write-through", "none", "best-effort");
            default -> throw new IllegalArgumentException("unknown race " + raceId + " (R1..R13, W1, P1)");
        };
    }
}
