package tierlab.model.io;

/**
 * The clock the device ports complete on: a virtual one (the simulator's event queue) or the wall
 * clock (a live runtime's queue of due completions). A port that knows when an operation finishes
 * (a device model, a timed compute step, a memcpy done at once) hands it here with that time; the
 * runtime delivers the completion to the sink then. Ports never read a clock themselves.
 */
public interface CompletionTimeline {

    /** The time of the event being handled now. */
    long nowNs();

    /** {@code op} finishes at {@code atNs} (not before {@link #nowNs()}); its completion goes to {@code sink} then. */
    void completeAt(IoOp op, long atNs, OpSink sink);
}
