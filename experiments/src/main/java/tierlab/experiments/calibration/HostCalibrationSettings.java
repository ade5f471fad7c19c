package tierlab.experiments.calibration;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
import tierlab.engine.cuda.CudaDevice;
import tierlab.model.geometry.Geometry;

/**
 * The {@code calibration:} section of a validation file ({@code tierlab validate}): E5's grid,
 * shorter (every access pattern, a few block sizes and queue depths, one pass of {@code pointMs}
 * each), the host-cost budget, and the sustained measurement: {@code sustainedMs} of sequential
 * writes, then of reads (0: none), at {@code sustainedBlockKiB} (0: the largest sweep size) and the
 * deepest sweep depth, on a {@code sustainedMiB} file. {@code ValidationFile} reads and checks it;
 * {@link #plan} turns it into what {@link Calibration#run} measures.
 */
public record HostCalibrationSettings(List<Integer> blockSizesKiB, List<Integer> queueDepths, int pointMs, int fileMiB,
                                      int hostCostMs, int sustainedMs, int sustainedMiB, int sustainedBlockKiB) {

    public static final HostCalibrationSettings DEFAULTS = new HostCalibrationSettings(List.of(256, 1024, 2304), List.of(1, 4, 16),
            200, 1024, 1500, 3000, 4096, 0);
    /** The preset whose GPU section the host's profile keeps (live mode times compute with the same formula). */
    public static final String BASE_PROFILE = "qwen3-8b-h100";
    /** The PCIe sweep's bytes per point and repeats: a short grid (about a second on a Gen5 link). */
    private static final long PCIE_BYTES_PER_POINT = 512L << 20;
    private static final int PCIE_REPEATS = 3;
    private static final long SWEEP_SEED = 20_261_201L;
    private static final long SUSTAINED_SEED = 20_261_202L;

    /** The section as a validation file writes it (any field may be left out); {@link #DEFAULTS} fills the rest. */
    public record Written(List<Integer> blockSizesKiB, List<Integer> queueDepths, Integer pointMs, Integer fileMiB,
                          Integer hostCostMs, Integer sustainedMs, Integer sustainedMiB, Integer sustainedBlockKiB) {}

    public HostCalibrationSettings {
        blockSizesKiB = List.copyOf(blockSizesKiB);
        queueDepths = List.copyOf(queueDepths);
    }

    /** Bytes per operation of the sustained measurement. */
    public int sustainedBlockBytes() {
        return (sustainedBlockKiB > 0 ? sustainedBlockKiB : blockSizesKiB.stream().mapToInt(Integer::intValue).max().orElseThrow()) << 10;
    }

    /** Queue depth of the sustained measurement: the sweep's deepest. */
    public int sustainedQueueDepth() {
        return queueDepths.stream().mapToInt(Integer::intValue).max().orElseThrow();
    }

    /**
     * What {@code tierlab validate} measures on this host: E5's NVMe sweep on this shorter grid in
     * {@code scratch} (one pass, the test file deleted after), the sustained rates when asked, the
     * host costs at {@code geometry}, and the link as the live runs copy: with CUDA a short PCIe sweep
     * through {@code cuda}, with host buffers ({@code cuda} null or unusable) no link at all.
     *
     * @param verify the live runs verify loads on the GPU side (the CUDA copy benchmark does as they do)
     */
    public Calibration.Plan plan(Path scratch, Geometry geometry, String profileName, CudaDevice cuda, boolean verify) {
        long pid = ProcessHandle.current().pid();
        CalibrationSettings grid = new CalibrationSettings(scratch.resolve("validate-calibration-" + pid + ".bin"),
                (long) fileMiB << 20, CalibrationSettings.ACCESS_NAMES, blockSizesKiB.stream().map(k -> k << 10).toList(),
                queueDepths, pointMs / 1000.0, 1, "best", BASE_PROFILE, profileName, true, SWEEP_SEED);
        Calibration.Sustained sustained = sustainedMs <= 0 ? null
                : new Calibration.Sustained(scratch.resolve("validate-sustained-" + pid + ".bin"), (long) sustainedMiB << 20,
                        sustainedBlockBytes(), sustainedQueueDepth(), Duration.ofMillis(sustainedMs), SUSTAINED_SEED);
        Calibration.PciePlan pcie = cuda != null && cuda.available() ? new Calibration.PciePlan.Sweep(cuda, pcieGrid(geometry))
                : new Calibration.PciePlan.HostBuffers();
        return new Calibration.Plan(grid, pcie, sustained, new Calibration.HostCostPlan(scratch, geometry, hostCostMs, verify));
    }

    /** The copy sizes of the short PCIe grid: 256 KiB to 64 MiB and the workload's lane size, one stream, pinned. */
    public static PcieSweep.Settings pcieGrid(Geometry geometry) {
        TreeSet<Long> sizes = new TreeSet<>(List.of(256L << 10, 1L << 20, 4L << 20, 16L << 20, 64L << 20));
        if (geometry.laneBytes() <= PcieSweep.MAX_COPY_BYTES) {
            sizes.add(geometry.laneBytes());
        }
        return new PcieSweep.Settings(List.copyOf(sizes), List.of(1), PCIE_BYTES_PER_POINT, PCIE_REPEATS, List.of());
    }
}
