package tierlab.model.serving;

import java.util.ArrayList;
import java.util.List;
import tierlab.model.geometry.BlockKey;
import tierlab.model.store.LookupResult;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.TieredStore;

/**
 * The storage prefetches of the SGLang engine ({@link SglangEngine}): a request whose hit has an L2
 * part waits while that part is brought to L1 under its lease, until
 * {@link SchedulerSettings#prefetchStop()}'s deadline; then the prefetch stops, what reached L1 is
 * loaded and the rest is recomputed (counted in {@link #timeoutTokens()}).
 */
final class SglangPrefetches {

    /** A storage prefetch in flight: the request waits for it until {@code deadlineNs}. */
    private record Prefetch(EngineRequest request, long deadlineNs, long hitTokens, int hitBlocks) {}

    private final SglangEngine engine;
    /** In the order they began. */
    private final List<Prefetch> prefetching = new ArrayList<>();
    private long prefetchCalls;
    private long prefetchTimeoutTokens;

    SglangPrefetches(SglangEngine engine) {
        this.engine = engine;
    }

    /** The storage part of a hit is brought to L1 under the request's lease; the request waits per the stop policy. */
    void start(EngineRequest request, LookupResult hit, long nowNs) {
        prefetchCalls++;
        TieredStore.AcquireOutcome outcome = engine.store.acquire(request.spec.requestId(), hit, nowNs);
        engine.trace.record("prefetch", request.spec.requestId(), outcome.ordinal());
        switch (outcome) {
            case READY -> engine.startRunning(request, hit, nowNs);
            case PROMOTING -> {
                request.phase = EngineRequest.Phase.PREFETCHING;
                request.hit = hit;
                request.acquiring = true;
                request.loadsWaited++;
                if (request.admittedNs < 0) {
                    request.admittedNs = nowNs;
                }
                long deadlineNs = engine.settings.prefetchStop().deadlineNs(nowNs, request.spec.promptTokens());
                prefetching.add(new Prefetch(request, deadlineNs, hit.hitTokens(), hit.hitBlocks()));
            }
            case ADMISSION_WAIT, NOTHING_TO_ACQUIRE -> {
                engine.store.releaseLease(request.spec.requestId(), nowNs);
                engine.startRunning(request, null, nowNs);
            }
        }
    }

    /**
     * Prefetches whose deadline has come stop (checked at every event the engine sees): the lease goes,
     * the longest leading part of the hit that has reached L1 is loaded, and the rest is recomputed.
     */
    void stopExpired(long nowNs) {
        for (int i = 0; i < prefetching.size(); ) {
            Prefetch prefetch = prefetching.get(i);
            if (prefetch.deadlineNs() > nowNs) {
                i++;
                continue;
            }
            prefetching.remove(i);
            EngineRequest request = prefetch.request();
            request.acquiring = false;
            engine.admissionDirty = true;
            engine.store.releaseLease(request.spec.requestId(), nowNs);
            LookupResult arrived = arrivedPrefix(request, prefetch.hitBlocks(), nowNs);
            long recomputed = Math.max(0, prefetch.hitTokens() - (arrived == null ? 0 : arrived.hitTokens()));
            prefetchTimeoutTokens += recomputed;
            engine.trace.record("prefetch-stop", request.spec.requestId(), recomputed);
            LookupResult prefetched = request.hit;
            engine.startRunning(request, arrived, nowNs);
            // Per request, at the admission that serves it (the pass metric sums the requests' figures).
            request.prefetchTimeoutTokens = recomputed;
            if (arrived != null) {
                // What arrived came through the prefetch: L1 and L2 shares as at the lookup that began it.
                request.admittedResidentUnits = prefetched.residentUnits();
                request.admittedUnits = prefetched.units().size();
            }
        }
    }

    /**
     * The longest leading run of a stopped prefetch's blocks that is wholly in L1 now, leased (null when its
     * first block has not arrived): SGLang uses the part of a prefetch that completed. Whether the first k
     * blocks are all in L1 only turns false as k grows, so a binary search over k finds it with side-effect
     * free classifications, and one lookup capped after k blocks takes its lease.
     */
    private LookupResult arrivedPrefix(EngineRequest request, int hitBlocks, long nowNs) {
        List<BlockKey> chain = request.spec.chain();
        long startTokens = request.computedTokens;
        int arrivedBlocks = 0;
        int notArrivedFrom = hitBlocks + 1;
        while (notArrivedFrom - arrivedBlocks > 1) {
            int blocks = (arrivedBlocks + notArrivedFrom) >>> 1;
            if (engine.store.classify(chain, startTokens, promptCappedAfter(request, blocks)) == HitClass.L1) {
                arrivedBlocks = blocks;
            } else {
                notArrivedFrom = blocks;
            }
        }
        if (arrivedBlocks == 0) {
            return null;
        }
        LookupResult arrived = engine.store.lookup(request.spec.requestId(), chain, startTokens,
                promptCappedAfter(request, arrivedBlocks), nowNs);
        if (arrived.hitClass() != HitClass.L1 || arrived.leaseStatus() != LookupResult.LeaseStatus.LEASED) {
            engine.store.releaseLease(request.spec.requestId(), nowNs);
            return null;
        }
        return arrived;
    }

    /** A prompt length whose lookup hit (capped one token short) ends after {@code blocks} blocks past the computed ones. */
    private long promptCappedAfter(EngineRequest request, int blocks) {
        return Math.min(request.spec.promptTokens(), request.computedTokens + (long) blocks * engine.blockTokens + 1);
    }

    /** The store's acquire for a prefetching request ended: it runs with the hit, or computes it if the read failed. */
    void onAcquireDone(EngineRequest request, boolean succeeded, long nowNs) {
        if (request == null || !request.acquiring || request.phase != EngineRequest.Phase.PREFETCHING) {
            return;
        }
        request.acquiring = false;
        prefetching.removeIf(p -> p.request() == request);
        engine.trace.record("prefetch-done", request.spec.requestId(), succeeded ? 1 : 0);
        if (succeeded) {
            request.prefetched = true;
            engine.startRunning(request, request.hit, nowNs);
        } else {
            // The storage read failed: what it was to bring is computed instead.
            engine.store.releaseLease(request.spec.requestId(), nowNs);
            engine.startRunning(request, null, nowNs);
        }
    }

    /** Prefetches in flight now. */
    int active() {
        return prefetching.size();
    }

    /** Cumulative: prefetches started. */
    long calls() {
        return prefetchCalls;
    }

    /** Cumulative: prompt tokens of storage hits recomputed because a prefetch stopped at its deadline. */
    long timeoutTokens() {
        return prefetchTimeoutTokens;
    }
}
