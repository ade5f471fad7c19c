package tierlab.model.serving;

import tierlab.model.trace.DecisionTrace;

/**
 * How many failed prefetches one request may have before it stops asking L2 and recomputes its
 * prompt. A failed prefetch sends the request back to the queue, where its next lookup finds the
 * same L2 entries; on a device whose reads keep failing that was a loop without end. A
 * transient error still gets retries; a block that cannot be read is computed instead.
 */
public final class PrefetchRetryBound {

    /** The default limit. */
    public static final int DEFAULT_FAILED_PREFETCHES = 4;

    private int limit = DEFAULT_FAILED_PREFETCHES;
    private long giveUps;

    /**
     * Sets the limit (at least 1); {@code Integer.MAX_VALUE} brings back the unbounded retry loop,
     * which tests use to show that the progress watchdog ends it.
     */
    public void setLimit(int failedPrefetches) {
        if (failedPrefetches < 1) {
            throw new IllegalArgumentException("the failed-prefetch limit must be >= 1, was " + failedPrefetches);
        }
        this.limit = failedPrefetches;
    }

    public int limit() {
        return limit;
    }

    /** Requests that gave up reading L2 after too many failed prefetches and recomputed instead. */
    public long giveUps() {
        return giveUps;
    }

    /** A prefetch of {@code request} failed: past the limit, it is admitted as a miss from now on. */
    void failed(EngineRequest request, DecisionTrace trace) {
        request.failedPrefetches++;
        if (request.failedPrefetches >= limit && !request.recomputeStored) {
            request.recomputeStored = true;
            giveUps++;
            // Recorded only on a failure: a run without faults keeps its decision trace.
            trace.record("prefetch-give-up", request.spec.requestId(), request.failedPrefetches);
        }
    }

    /**
     * Every request that gave up is counted once, and gave up after failed prefetches: the engine
     * counts its requests that recompute their stored blocks ({@code givenUp}) and those of them with
     * at least one failed prefetch ({@code givenUpAfterFailures}).
     */
    void checkInvariants(long givenUp, long givenUpAfterFailures) {
        if (givenUp != giveUps || givenUpAfterFailures != giveUps || limit < 1) {
            throw new IllegalStateException("prefetch retry bound: " + giveUps + " give-ups counted, " + givenUp
                    + " requests recompute their stored blocks, " + givenUpAfterFailures + " of them with at least one failed prefetch");
        }
    }
}
