package tierlab.sim.device;

/**
 * CPU cost of getting I/O to the device, paid on one submitter thread: each submission (one
 * executor task and one io_uring_enter) costs {@code submissionNs}, each operation in it
 * {@code perOperationNs}. This is what batching L2 reads saves (E1).
 */
public record HostProfile(long submissionNs, long perOperationNs) {
    public HostProfile {
        DeviceProfile.nonNegative("host.submissionNs", submissionNs);
        DeviceProfile.nonNegative("host.perOperationNs", perOperationNs);
    }
}
