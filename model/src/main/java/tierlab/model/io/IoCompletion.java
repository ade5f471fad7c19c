package tierlab.model.io;

/**
 * A backend's answer for one ticket. A failure is a value with the errno name (EIO, EINVAL, ...),
 * never an exception: the model decides what a failed read means (fall back to recompute).
 */
public record IoCompletion(long ticket, boolean succeeded, String errorName) {

    public static IoCompletion ok(long ticket) {
        return new IoCompletion(ticket, true, null);
    }

    public static IoCompletion failed(long ticket, String errorName) {
        return new IoCompletion(ticket, false, errorName == null ? "EIO" : errorName);
    }
}
