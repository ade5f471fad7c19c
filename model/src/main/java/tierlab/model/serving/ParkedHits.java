package tierlab.model.serving;

import java.util.Iterator;
import java.util.function.LongPredicate;
import java.util.function.ToLongFunction;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.TieredStore;

/**
 * The admission shortcut for parked requests of the vLLM-like {@link EngineScheduler}: whether a
 * parked request is still a MIXED or L2 hit, answered from the store's witness instead of a walk
 * of its chain, and the slow cross-check of every shortcut answer (for tests).
 */
final class ParkedHits {
    private final TieredStore store;
    private boolean crossCheck;
    /**
     * What the last admission pass learnt about the front of the queue: its first {@code skipRunLength}
     * requests were all parked requests whose witnesses held (so the pass skipped them, doing
     * nothing), needing at most {@code skipRunMaxNeedBlocks} GPU blocks each; valid while the front,
     * the watched residency gains and the L2 removals are what they were then (see {@link #runHolds}).
     */
    int skipRunLength;
    long skipRunMaxNeedBlocks;
    private long skipRunFrontEpoch;
    private long skipRunWatchedGains;
    private long skipRunIndexRemovals;
    /** Parked requests a pass passed over without a lookup; passes that passed over a whole run at once. */
    long parkedSkips;
    long runSkips;

    ParkedHits(TieredStore store) {
        this.store = store;
    }

    /** Recomputes every shortcut answer the slow way as well (it costs what the shortcuts save). */
    void setCrossCheck(boolean check) {
        this.crossCheck = check;
    }

    boolean crossCheck() {
        return crossCheck;
    }

    /** Whether the run the last pass learnt still rests on the same queue front, watched gains and L2 removals. */
    boolean runHolds(long frontEpoch, long watchedGains, long indexRemovals) {
        return skipRunLength > 0 && skipRunFrontEpoch == frontEpoch && skipRunWatchedGains == watchedGains
                && skipRunIndexRemovals == indexRemovals;
    }

    /** What a pass learnt: the length of the parked run it skipped at the front (0: none to trust). */
    void rememberRun(int runLength, long runMaxNeedBlocks, long frontEpoch) {
        skipRunLength = runLength;
        skipRunMaxNeedBlocks = runMaxNeedBlocks;
        skipRunFrontEpoch = frontEpoch;
        skipRunWatchedGains = store.watchedResidencyGains();
        skipRunIndexRemovals = store.indexRemovals();
    }

    static boolean isMixedOrL2(HitClass hitClass) {
        return hitClass == HitClass.MIXED || hitClass == HitClass.L2;
    }

    /**
     * {@code isMixedOrL2(store.classify(...))} for a parked request. In an overloaded engine the
     * prefetch window is nearly always full and every admission pass asks this for up to
     * maxNumSeqs parked requests, each a walk of its chain; the store's witness answers in constant
     * time while nothing the answer rests on has changed, and is renewed (one walk) when something has.
     */
    boolean stillMixedOrL2(EngineRequest request) {
        TieredStore.MixedOrL2Witness witness = request.parkedWitness;
        boolean answer;
        if (witness != null && witness.computedTokens() == request.computedTokens && store.witnessHolds(witness)) {
            answer = true;
        } else {
            drop(request);
            request.parkedWitness = store.mixedOrL2Witness(request.spec.chain(), request.computedTokens,
                    request.spec.promptTokens());
            if (request.parkedWitness != null) {
                store.watch(request.parkedWitness);
            }
            answer = request.parkedWitness != null;
        }
        if (crossCheck) {
            boolean slow = isMixedOrL2(store.classify(request.spec.chain(), request.computedTokens, request.spec.promptTokens()));
            if (slow != answer) {
                throw new IllegalStateException("parked request " + request.spec.requestId() + ": the witness says "
                        + (answer ? "MIXED or L2" : "L1 or MISS") + " but classify says " + (slow ? "MIXED or L2" : "L1 or MISS"));
            }
        }
        return answer;
    }

    /** The request is no longer parked: its witness stops being watched. */
    void drop(EngineRequest request) {
        if (request.parkedWitness != null) {
            store.unwatch(request.parkedWitness);
            request.parkedWitness = null;
        }
    }

    /**
     * Cross-check of a skipped run: every request in it is parked and classifies MIXED or L2, and
     * capacity agrees ({@code noRoomFor} answers for a request's GPU-block need).
     */
    void crossCheckRun(Iterator<EngineRequest> queue, int runLength, ToLongFunction<EngineRequest> needOf,
                       LongPredicate noRoomFor, boolean capacityFails) {
        boolean fails = false;
        for (int i = 0; i < runLength; i++) {
            EngineRequest request = queue.next();
            long needBlocks = needOf.applyAsLong(request);
            if (noRoomFor.test(needBlocks)) {
                fails = true;
                break;
            }
            if (!request.parkedNow || !isMixedOrL2(store.classify(request.spec.chain(), request.computedTokens,
                    request.spec.promptTokens()))) {
                throw new IllegalStateException("skipped run: request " + request.spec.requestId()
                        + " is no longer a parked MIXED or L2 hit");
            }
        }
        if (fails != capacityFails) {
            throw new IllegalStateException("skipped run: capacity says " + capacityFails + " but the scan says " + fails);
        }
    }
}
