package tierlab.experiments.run;

import java.util.Map;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.store.StoreSettings;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.fault.FaultSettings;

/**
 * One run, fully resolved and validated: every default applied, every size in bytes.
 *
 * @param baseline   {@code tiered}, {@code no-offload} or {@code host-memory} (see {@link ExperimentFile.StoreSection})
 * @param parameters every setting of the run by its file path ({@code store.policy} → {@code "lru"}), the
 *                   left-hand columns of {@code results.csv}
 * @param l2File     live mode: the persistent L2 file the run starts warm from and keeps; null for a scratch file
 * @param gpu        live mode: {@code auto}, {@code cuda} or {@code host} (ExperimentFile.LiveSection)
 * @param verifyGpu  live mode with CUDA: verify payloads on the GPU side
 * @param sameInstantArrivalsTogether sim and hybrid mode: every request arriving at one instant is handed
 *                   to the engine before it ticks, as the live loop does (SimRuntime#setSameInstantArrivalsTogether)
 */
public record RunConfig(String mode, long seed, WorkloadPlan workload, StoreSettings store, SchedulerSettings scheduler,
                        DeviceProfile device, FaultSettings faults, String baseline, long sampleIntervalNs,
                        boolean checkInvariants, Map<String, Object> parameters, java.nio.file.Path l2File,
                        String gpu, boolean verifyGpu, boolean sameInstantArrivalsTogether) {

    public static final String TIERED = "tiered";
    public static final String NO_OFFLOAD = "no-offload";
    public static final String HOST_MEMORY = "host-memory";

    /** live.gpu: CUDA when present, else host buffers. */
    public static final String GPU_AUTO = "auto";
    /** live.gpu: CUDA or the run fails. */
    public static final String GPU_CUDA = "cuda";
    /** live.gpu: host buffers (no GPU). */
    public static final String GPU_HOST = "host";

    /** This run on another device profile, the rest of its settings kept (validate's drive-capped profiles). */
    public RunConfig withDevice(DeviceProfile newDevice) {
        return new RunConfig(mode, seed, workload, store, scheduler, newDevice, faults, baseline, sampleIntervalNs, checkInvariants,
                parameters, l2File, gpu, verifyGpu, sameInstantArrivalsTogether);
    }

    /**
     * This run in another mode, the rest of its settings kept ({@code tierlab validate} runs one
     * workload live and simulated); {@code gpu} and {@code verifyGpu} are the live GPU side.
     */
    public RunConfig inMode(RunMode runMode, String gpuSide, boolean verify) {
        Map<String, Object> changed = new java.util.LinkedHashMap<>(parameters);
        changed.put("mode", runMode.name());
        return new RunConfig(runMode.name(), seed, workload, store, scheduler, device, faults, baseline, sampleIntervalNs,
                checkInvariants, java.util.Collections.unmodifiableMap(changed), runMode.persistentL2() ? l2File : null,
                gpuSide, verify, sameInstantArrivalsTogether);
    }
}
