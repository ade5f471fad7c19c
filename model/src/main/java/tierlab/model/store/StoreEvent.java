package tierlab.model.store;

/** What the store tells its driver (the scheduler) when background work finishes. */
public sealed interface StoreEvent {
    long requestId();

    /** Every range of the request's lease is now held in L1 (succeeded), or some range could not be promoted. */
    record AcquireDone(long requestId, boolean succeeded) implements StoreEvent {}

    /** The grouped L1 → GPU copy of the request's lease finished (or failed). */
    record LoadDone(long requestId, boolean succeeded) implements StoreEvent {}

    /**
     * Every staging copy of the request's save finished: its GPU blocks may be reused now. A save
     * cancelled by a preemption reports {@code cancelled}: it frees the preempted incarnation's blocks
     * and says nothing about the save of the request's current incarnation.
     */
    record SaveStaged(long requestId, boolean cancelled) implements StoreEvent {
        public SaveStaged(long requestId) {
            this(requestId, false);
        }
    }
}
