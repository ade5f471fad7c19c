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
 * of scheduling before its compute starts. With {@code copiesOnStreams} the copy costs are paid on
 * one stream thread per direction instead, beside the model thread, as tierlab's live runtime
 * runs its copies; steps then never wait for copies.
 *
 * <p>{@code ioRings} says how the submitter folds submissions into io_uring_enter calls (see
 * {@link HostSubmitter}): 0 (absent, every bundled profile) is one thread making one call per
 * submission, the reference system's loop; n &gt; 0 is tierlab's own io_uring engine with n ring
 * threads, where submissions go to the rings in turn and a ring folds every submission that reached
 * it before its next call into that one call.
 *
 * @param submissionNs   submitter time per submission (io_uring_enter)
 * @param perOperationNs submitter time per operation in a submission
 * @param copyCallNs     model-thread time per host↔GPU copy call; 0 (or absent from a profile file) = none
 * @param copyNsPerMiB   model-thread time per MiB a copy moves (a CPU memcpy on a host without a
 *                       GPU, pinning or bookkeeping with one); 0 (or absent) = none
 * @param engineStepNs   model-thread time per engine step (the scheduler's own work); 0 (or absent) = none
 * @param ioRings        io_uring ring threads of the submitting engine; 0 (or absent) = one submitter, one
 *                       io_uring_enter per submission
 * @param copiesOnStreams where the copy costs are paid: false (or absent, every bundled profile) on the
 *                       thread that runs the model, in line with its engine steps (a control plane that
 *                       issues and waits for its copies itself); true on one stream thread per direction
 *                       (host-to-GPU, GPU-to-host), beside the model thread, as tierlab's live runtime
 *                       does ({@code LiveDevicePorts})
 * @param copiesPerSegment how a load reaches the link: false (or absent, every bundled profile) as one copy
 *                       (one per layer group with layer-wise loading), paying the link's per-copy latency
 *                       once; true as tierlab's CUDA copy port issues it, one copy per segment (and per
 *                       segment and layer group), each paying the link's per-copy latency, and with
 *                       layer-wise loading the enqueue costs ({@code copyCallNs} and {@code copyNsPerMiB},
 *                       measured per call) once per group
 */
public record HostProfile(long submissionNs, long perOperationNs,
                          // Optional: absent in every profile written before they existed, and then 0.
                          @JsonSetter(nulls = Nulls.AS_EMPTY) @JsonInclude(JsonInclude.Include.NON_DEFAULT) long copyCallNs,
                          @JsonSetter(nulls = Nulls.AS_EMPTY) @JsonInclude(JsonInclude.Include.NON_DEFAULT) double copyNsPerMiB,
                          @JsonSetter(nulls = Nulls.AS_EMPTY) @JsonInclude(JsonInclude.Include.NON_DEFAULT) long engineStepNs,
                          @JsonSetter(nulls = Nulls.AS_EMPTY) @JsonInclude(JsonInclude.Include.NON_DEFAULT) int ioRings,
                          @JsonSetter(nulls = Nulls.AS_EMPTY) @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean copiesOnStreams,
                          @JsonSetter(nulls = Nulls.AS_EMPTY) @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean copiesPerSegment) {
    /** The most ring threads a profile may name (the io_uring engine's own limit). */
    public static final int MAX_IO_RINGS = 64;

    public HostProfile {
        DeviceProfile.nonNegative("host.submissionNs", submissionNs);
        DeviceProfile.nonNegative("host.perOperationNs", perOperationNs);
        DeviceProfile.nonNegative("host.copyCallNs", copyCallNs);
        DeviceProfile.nonNegative("host.copyNsPerMiB", copyNsPerMiB);
        DeviceProfile.nonNegative("host.engineStepNs", engineStepNs);
        if (ioRings < 0 || ioRings > MAX_IO_RINGS) {
            throw new IllegalArgumentException("host.ioRings must be between 0 and " + MAX_IO_RINGS + ", was " + ioRings);
        }
    }

    /** These costs, each load reaching the link as one copy (per layer group). */
    public HostProfile(long submissionNs, long perOperationNs, long copyCallNs, double copyNsPerMiB, long engineStepNs,
                       int ioRings, boolean copiesOnStreams) {
        this(submissionNs, perOperationNs, copyCallNs, copyNsPerMiB, engineStepNs, ioRings, copiesOnStreams, false);
    }

    /** These costs with one submitter making one io_uring_enter per submission ({@code ioRings} 0). */
    public HostProfile(long submissionNs, long perOperationNs, long copyCallNs, double copyNsPerMiB, long engineStepNs) {
        this(submissionNs, perOperationNs, copyCallNs, copyNsPerMiB, engineStepNs, 0, false);
    }

    /** These costs through {@code ioRings} rings, copies paid on the model thread. */
    public HostProfile(long submissionNs, long perOperationNs, long copyCallNs, double copyNsPerMiB, long engineStepNs, int ioRings) {
        this(submissionNs, perOperationNs, copyCallNs, copyNsPerMiB, engineStepNs, ioRings, false);
    }

    /** Submitter costs only; the model thread costs nothing (every preset). */
    public HostProfile(long submissionNs, long perOperationNs) {
        this(submissionNs, perOperationNs, 0, 0, 0, 0, false);
    }

    /** The same submitter costs with these model-thread costs. */
    public HostProfile withModelThread(long newCopyCallNs, double newCopyNsPerMiB, long newEngineStepNs) {
        return new HostProfile(submissionNs, perOperationNs, newCopyCallNs, newCopyNsPerMiB, newEngineStepNs, ioRings, copiesOnStreams, copiesPerSegment);
    }

    /** The same costs, submitted through {@code rings} io_uring ring threads (0: one submitter, one call per submission). */
    public HostProfile withIoRings(int rings) {
        return new HostProfile(submissionNs, perOperationNs, copyCallNs, copyNsPerMiB, engineStepNs, rings, copiesOnStreams, copiesPerSegment);
    }

    /** The same costs, with the copy costs paid on per-direction stream threads ({@code true}) or the model thread. */
    public HostProfile withCopiesOnStreams(boolean onStreams) {
        return new HostProfile(submissionNs, perOperationNs, copyCallNs, copyNsPerMiB, engineStepNs, ioRings, onStreams, copiesPerSegment);
    }

    /** The same costs, each load reaching the link as one copy per segment ({@code true}) or as one copy. */
    public HostProfile withCopiesPerSegment(boolean perSegment) {
        return new HostProfile(submissionNs, perOperationNs, copyCallNs, copyNsPerMiB, engineStepNs, ioRings, copiesOnStreams,
                perSegment);
    }

    /** Whether any model-thread cost is set (when none is, the model thread is not simulated at all). */
    public boolean chargesModelThread() {
        return copyCallNs > 0 || copyNsPerMiB > 0 || engineStepNs > 0;
    }
}
