package tierlab.hunt;

/**
 * What a run checks. The invariants of docs/tiered-store.md section 5, the two race-specific checks
 * that {@code checkInvariants()} reports by race id, the agreement with the reference model, and
 * a bucket for anything else the model rejects (an exception where a value was expected).
 */
public enum Check {
    I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11,
    /** Unwritten units (write policies): each is resident in L1 under a key of the index (docs/tiered-store.md section 5). */
    I12,
    /** A store published over a range a lease still holds (reported by checkInvariants as R4). */
    R4,
    /** Two promotions of one unit in flight (reported by checkInvariants as R6). */
    R6,
    /** A staging copy read GPU blocks that held other KV than its request expected (R10). */
    STAGING,
    /** vllm-v1's GPU block pool: a block handed out while referenced, or references that do not add up. */
    G1,
    /** vllm-v1's GPU prefix cache: a cached block reused under another key, or the key map and the blocks disagree. */
    G2,
    /** sglang's GPU pages: a block in two places, or blocks that do not add up. */
    S1,
    /** sglang's radix tree: a request uses a page under another key than its own. */
    S2,
    /** sglang's radix tree: lock counts that are not the requests' and saves' locks (a locked page evicted), or a broken tree. */
    S3,
    /** sglang's queues: a request's phase and the queue or list holding it disagree, or maxNumSeqs is exceeded. */
    S4,
    /** The model and the reference model disagree on an observable result. */
    REFERENCE,
    /** The model threw where the schedule expected a value, or broke its own bookkeeping. */
    MODEL_ERROR;

    /** Classifies a checkInvariants() message by the rule id it starts with. */
    static Check ofInvariantMessage(String message) {
        if (message != null) {
            int colon = message.indexOf(':');
            if (colon > 0 && colon <= 3) {
                try {
                    return valueOf(message.substring(0, colon));
                } catch (IllegalArgumentException notAnId) {
                    return MODEL_ERROR;
                }
            }
        }
        return MODEL_ERROR;
    }
}
