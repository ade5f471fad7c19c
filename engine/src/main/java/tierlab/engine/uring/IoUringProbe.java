package tierlab.engine.uring;

/**
 * The answer of {@link UringAvailability#probe()}: whether the engine can use io_uring here and, when it
 * cannot, the cause in one sentence (with the errno name when a system call refused).
 *
 * @param available      io_uring_setup worked and READ, WRITE, READ_FIXED, WRITE_FIXED are supported
 * @param cause          why not (null when available), e.g. "io_uring_setup(4, flags=0x0) failed: EPERM ..."
 * @param errnoName      the refusing system call's errno name (ENOSYS, EPERM, ...), or null
 * @param features       IORING_FEAT_* bits the kernel reported (0 when unavailable)
 * @param kernel         os.name, os.version and os.arch, for reports
 */
public record IoUringProbe(boolean available, String cause, String errnoName, int features, String kernel) {

    static IoUringProbe available(int features, String kernel) {
        return new IoUringProbe(true, null, null, features, kernel);
    }

    static IoUringProbe unavailable(String cause, String errnoName, String kernel) {
        return new IoUringProbe(false, cause, errnoName, 0, kernel);
    }

    /** Whether the SQ and CQ rings share one mapping (IORING_FEAT_SINGLE_MMAP). */
    public boolean singleMmap() {
        return (features & IoUringLayout.IORING_FEAT_SINGLE_MMAP) != 0;
    }

    @Override
    public String toString() {
        return available
                ? "io_uring available on " + kernel + " (features 0x" + Integer.toHexString(features) + ")"
                : "io_uring unavailable on " + kernel + ": " + cause;
    }
}
