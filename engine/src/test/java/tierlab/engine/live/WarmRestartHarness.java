package tierlab.engine.live;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import tierlab.engine.PinnedArena;
import tierlab.engine.persist.L2FileLock;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.geometry.ModelShape;
import tierlab.model.io.ComputeTiming;
import tierlab.model.io.StoragePort;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreSettings;
import tierlab.model.trace.DecisionTrace;

/**
 * Live runs on one persistent L2 file as a user's processes would make them: lock the file, open
 * the storage port, {@link WarmStart#open}, serve prompts on real bytes (every load is checked against the
 * payload of its key, so wrong bytes show up as mismatches), then save the index or "crash"
 * (end without saving).
 */
final class WarmRestartHarness {
    static final ModelShape SMALL = new ModelShape("small", 2, 2, 128, 2);
    static final Geometry GEOMETRY = new Geometry(SMALL, 16, 1);
    /** L1 of 32 blocks, L2 of 256: one prompt set (80 blocks) fits L2 whole, three do not. */
    static final StoreSettings SETTINGS = StoreSettings.defaults(GEOMETRY, 32 * GEOMETRY.blockBytes(), 256 * GEOMETRY.blockBytes());
    static final int PROMPTS = 20;
    static final int BLOCKS_PER_PROMPT = 4;

    /**
     * What one process saw: how its store was opened, what the run served, and how many units the
     * store showed in L2 right after opening (before the run stored anything).
     */
    record Outcome(WarmStart.Opened opened, LiveRuntime.Report report, long l2VisibleAtOpen, WarmStart.Saved saved) {}

    /** What a test does while a run holds the L2 file, between opening the store and serving. */
    @FunctionalInterface
    interface WhileHeld {
        void run(WarmStart.Opened opened) throws Exception;
    }

    private WarmRestartHarness() {}

    /** 20 prompts of 4 blocks; {@code keySet} picks the keys (equal sets share every key), {@code firstId} the request ids. */
    static List<RequestSpec> prompts(int keySet, long firstId) {
        List<RequestSpec> requests = new ArrayList<>();
        for (int p = 0; p < PROMPTS; p++) {
            List<BlockKey> chain = new ArrayList<>();
            BlockKey parent = BlockKey.ROOT;
            for (int b = 0; b < BLOCKS_PER_PROMPT; b++) {
                parent = BlockKey.fromTraceId(parent, keySet * 1_000 + p, b);
                chain.add(parent);
            }
            requests.add(new RequestSpec(firstId + p, p * 100_000L, BLOCKS_PER_PROMPT * 16 + 5, 1, chain));
        }
        return requests;
    }

    /** One process on {@code l2}: opens warm or cold, serves {@code requests}, saves the index only if {@code clean}. */
    static Outcome run(Path l2, List<RequestSpec> requests, boolean clean) throws Exception {
        return run(l2, requests, clean, opened -> { });
    }

    /**
     * {@link #run(Path, List, boolean)} in the order a live run takes: lock the L2 file, open the
     * storage port on it, open the store; {@code whileHeld} runs once the store is open.
     */
    static Outcome run(Path l2, List<RequestSpec> requests, boolean clean, WhileHeld whileHeld) throws Exception {
        try (L2FileLock lock = L2FileLock.acquire(l2);
             PinnedArena arena = PinnedArena.allocate(SETTINGS.l1CapacityBytes(), false);
             StoragePort port = tierlab.engine.StoragePorts.open(l2, arena, SETTINGS.l2CapacityBytes())) {
            WarmStart.Opened opened = WarmStart.open(SETTINGS, lock, new DecisionTrace());
            try (opened) {
                whileHeld.run(opened);
                return serve(opened, arena, port, requests, clean);
            }
        }
    }

    private static Outcome serve(WarmStart.Opened opened, PinnedArena arena, StoragePort port,
                                 List<RequestSpec> requests, boolean clean) throws Exception {
        ServingEngine scheduler = ServingEngines.create(SchedulerSettings.defaults(1_024).withConcurrency(4),
                opened.store(), opened.store().trace());
        try (LiveRuntime runtime = new LiveRuntime(scheduler, port, arena, new ComputeTiming(20_000, 100, 0, 10_000),
                30_000_000_000L)) {
            long l2VisibleAtOpen = opened.store().testView().l2VisibleCount();
            LiveRuntime.Report report = runtime.run(requests);
            WarmStart.Saved saved = clean ? WarmStart.saveOnShutdown(opened, report.mismatches()) : null;
            return new Outcome(opened, report, l2VisibleAtOpen, saved);
        }
    }
}
