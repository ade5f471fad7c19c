package tierlab.engine.uring;

import java.io.IOException;

/**
 * A libc call or system call failed while setting something up (opening the L2 file, creating or
 * mapping a ring, registering buffers). Carries the call and the errno so the message names both:
 * {@code "open(/data/l2.bin, O_DIRECT) failed: EINVAL (Invalid argument)"}.
 *
 * <p>Failures of individual I/O operations are never exceptions: they reach the completion sink as
 * failed {@code IoCompletion} values with the errno name.
 */
public final class NativeIoException extends IOException {

    private static final long serialVersionUID = 1L;

    private final String call;
    private final int errno;

    public NativeIoException(String call, int errno) {
        this(call, errno, null);
    }

    public NativeIoException(String call, int errno, String hint) {
        super(call + " failed: " + Errno.name(errno) + " (" + Libc.describe(errno) + ")"
                + (hint == null ? "" : "; " + hint));
        this.call = call;
        this.errno = errno;
    }

    /** The call as written in the message, e.g. {@code io_uring_setup(64)}. */
    public String call() {
        return call;
    }

    /** The positive errno the call reported. */
    public int errno() {
        return errno;
    }

    /** The errno's name, e.g. {@code EPERM}. */
    public String errnoName() {
        return Errno.name(errno);
    }
}
