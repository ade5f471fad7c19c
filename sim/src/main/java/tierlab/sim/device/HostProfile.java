package tierlab.sim.device;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;

/**
 * CPU cost of the host's control plane, the part of a run that is neither the drive, the link nor
 * the GPU.
 *
 * <p>Getting I/O to the device is paid on one submitter thread (the io_uring ring thread live):
 * each submission (one io_uring_enter) costs {@code submissionNs}, each operation in it
 * {@code perOperationNs}. This is what batching L2 reads saves (E1).
 *
 * <p>The other three are paid on the thread that runs the model (the serving engine's own thread;
 * see {@link HostThread}) and are 0 in every preset, so a profile without them runs exactly as
 * before they existed: each host↔GPU copy call costs {@code copyCallNs} plus {@code copyNsPerMiB}
 * per MiB copied before the copy reaches the link (a staging or load call issued per slot instead
 * of per span pays the call cost once per slot), and each engine step costs {@code engineStepNs}
 * of scheduling before its compute starts.
 *
 * @param submissionNs   submitter time per submission (io_uring_enter)
 * @param perOperationNs submitter time per operation in a submission
 * @param copyCallNs     model-thread time per host↔GPU copy call; 0 (or absent from a profile file) = none
 * @param copyNsPerMiB   model-thread time per MiB a copy moves (a CPU memcpy on a host without a
 *                       GPU, pinning or bookkeeping with one); 0 (or absent) = none
 * @param engineStepNs   model-thread time per engine step (the scheduler's own work); 0 (or absent) = none
 */
public record HostProfile(long submissionNs, long perOperationNs,
                          // Optional: absent in every profile written before they existed, and then 0.
                          @JsonSetter(nulls = Nulls.AS_EMPTY) @JsonInclude(JsonInclude.Include.NON_DEFAULT) long copyCallNs,
                          @JsonSetter(nulls = Nulls.AS_EMPTY) @JsonInclude(JsonInclude.Include.NON_DEFAULT) double copyNsPerMiB,
                          @JsonSetter(nulls = Nulls.AS_EMPTY) @JsonInclude(JsonInclude.Include.NON_DEFAULT) long engineStepNs) {
    public HostProfile {
        DeviceProfile.nonNegative("host.submissionNs", submissionNs);
        DeviceProfile.nonNegative("host.perOperationNs", perOperationNs);
        DeviceProfile.nonNegative("host.copyCallNs", copyCallNs);
        DeviceProfile.nonNegative("host.copyNsPerMiB", copyNsPerMiB);
        DeviceProfile.nonNegative("host.engineStepNs", engineStepNs);
    }

    /** Submitter costs only; the model thread costs nothing (every preset). */
    public HostProfile(long submissionNs, long perOperationNs) {
        this(submissionNs, perOperationNs, 0, 0, 0);
    }

    /** The same submitter costs with these model-thread costs. */
    public HostProfile withModelThread(long newCopyCallNs, double newCopyNsPerMiB, long newEngineStepNs) {
        return new HostProfile(submissionNs, perOperationNs, newCopyCallNs, newCopyNsPerMiB, newEngineStepNs);
    }

    /** Whether any model-thread cost is set (when none is, the model thread is not simulated at all). */
    public boolean chargesModelThread() {
        return copyCallNs > 0 || copyNsPerMiB > 0 || engineStepNs > 0;
    }
}
