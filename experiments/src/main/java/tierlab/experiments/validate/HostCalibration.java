package tierlab.experiments.validate;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.function.Consumer;
import tierlab.bench.calibration.CalibrationSweep;
import tierlab.bench.calibration.HostCostBench;
import tierlab.bench.calibration.MeasuredPoint;
import tierlab.bench.calibration.NvmeFit;
import tierlab.bench.calibration.PcieFit;
import tierlab.bench.calibration.PcieSweep;
import tierlab.bench.calibration.SustainedRates;
import tierlab.bench.calibration.SweepSettings;
import tierlab.engine.cuda.CudaDevice;
import tierlab.engine.cuda.CudaException;
import tierlab.model.geometry.Geometry;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.NvmeProfile;
import tierlab.sim.device.PcieProfile;

/**
 * Calibrates this host for {@code tierlab validate}: the NVMe model fitted to the live engine's
 * sweep (E5's sweep and fit on a shorter grid) and the host costs from
 * {@link HostCostBench}'s microbenchmarks. Nothing here sees a validation workload.
 *
 * <p>The link follows the copy path the live runs take. With host buffers (no GPU, or
 * {@code live.gpu: host}) a live "copy to the GPU" is the model thread's memcpy into a host buffer,
 * which the host-cost terms ({@code copyCallNs}, {@code copyNsPerMiB}) charge; the PCIe section is
 * then a link that adds nothing ({@link #NO_LINK}), so the copy is not charged twice. With CUDA the
 * copy engine moves the bytes: the PCIe section is fitted to a short PCIe sweep on this host
 * ({@link PcieSweep}, {@link PcieFit}: E5's code), and the model thread's copy terms are what
 * enqueueing a copy costs it ({@link HostCostBench#cudaCopyCosts}). The GPU section is the
 * preset's: live mode times compute steps with the same formula ({@code ComputeTiming}), so compute
 * is identical by construction and not validated here.
 */
final class HostCalibration {

    /** The PCIe section with CUDA: fitted to the sweep, or why not (then the preset's figures). */
    record Pcie(PcieProfile profile, String how) {}

    /** The fitted profile and what it came from. */
    record Result(DeviceProfile profile, HostCostBench.HostCosts hostCosts, NvmeFit.ClosedLoopFit nvmeFit, int points,
                  String backend, Pcie pcie, Ceilings ceilings, double seconds) {

        /** The profile file's header: where each number came from. */
        String header(String command) {
            NvmeProfile nvme = profile.nvme();
            boolean cuda = hostCosts.copyPath() == HostCostBench.CopyPath.CUDA;
            String copies = cuda
                    ? String.format(Locale.ROOT, "  model thread (CUDA copy path): %,d ns per host↔GPU copy call, %,.0f ns per MiB"
                            + " (enqueueing one\n                cudaMemcpyAsync per lane and the event record at this lane size;"
                            + " the copy engine moves the bytes,\n                the CPU copies none; fit r² %.3f),",
                    hostCosts.copyCallNs(), hostCosts.copyNsPerMiB(), hostCosts.copyFitR2())
                    : String.format(Locale.ROOT, "  model thread: %,d ns per host↔GPU copy call, %,.0f ns per MiB copied"
                            + " (memcpy and payload check, fit r² %.3f),",
                    hostCosts.copyCallNs(), hostCosts.copyNsPerMiB(), hostCosts.copyFitR2());
            String fill = cuda ? "  not charged: compute steps' payload writes into device memory (verification only)"
                    : String.format(Locale.ROOT, "  not charged (live-mode emulation, no GPU): %,.0f ns per MiB of computed KV filled with its payload",
                    hostCosts.computeFillNsPerMiB());
            String sustained = ceilings.sustained() == null ? "Ceilings: the sweep fit's (no sustained measurement: calibration.sustainedMs is 0)."
                    : String.format(Locale.ROOT, "Ceilings: %s. The sweep fit's ceilings were read %,.0f and write %,.0f B/s; the model"
                    + " takes the lower of each (a measurement of the drive, not fitted to any validation workload). %s",
                    ceilings.sustained().describe(), ceilings.sweptRead(), ceilings.sweptWrite(),
                    nvme.maxFreshWriteBytesPerSecond() > 0
                            ? String.format(Locale.ROOT, "First-write ceiling: %,.0f B/s for the bytes of a write that land on L2"
                            + " blocks no write of the run has touched (a live run's L2 file is fresh and preallocated).",
                            nvme.maxFreshWriteBytesPerSecond())
                            : "No first-write ceiling: first writes into the L2 file are charged as any write.");
            String link = cuda ? "PCIe: " + pcie.how() + "." : "PCIe: none on this host's live path (host buffers: the copy is the memcpy above).";
            return String.format(Locale.ROOT, """
                    Fitted by `%s` on this host (%.0f s): the NVMe model to the live engine's sweep (%d points,
                    %s), the host costs from microbenchmarks of the live code paths (HostCostBench):
                      io_uring ring thread: %,d ns per io_uring_enter, %,d ns per operation (fit r² %.3f)
                    %s
                                    %,d ns per engine step (%d steps timed)
                    %s
                    NVMe: %d channels, read %,d ns + %,.0f B/s per channel (ceiling %,.0f B/s), write %,d ns + %,.0f B/s per
                    channel (ceiling %,.0f B/s). %s
                    %s GPU: the preset's (live mode times compute with the same formula).""",
                    command, seconds, points, backend, hostCosts.submissionNs(), hostCosts.perOperationNs(),
                    hostCosts.submissionFitR2(), copies.stripTrailing(), hostCosts.engineStepNs(), hostCosts.engineSteps(), fill,
                    nvme.channels(), nvme.readBaseLatencyNs(), nvme.readBytesPerSecondPerChannel(), nvme.maxReadBytesPerSecond(),
                    nvme.writeBaseLatencyNs(), nvme.writeBytesPerSecondPerChannel(), nvme.maxWriteBytesPerSecond(), sustained, link);
        }
    }

    /** The sweep fit's device-wide ceilings, and the sustained rates that may have lowered them (null: not measured). */
    record Ceilings(double sweptRead, double sweptWrite, SustainedRates.Rates sustained) {}

    /** A link that takes no time: on a host without a GPU the copy's cost is the model thread's, charged elsewhere. */
    static final PcieProfile NO_LINK = new PcieProfile(1e15, 0, 1e15, 0);
    /** The PCIe sweep's bytes per point and repeats: a short grid (about a second on a Gen5 link). */
    private static final long PCIE_BYTES_PER_POINT = 512L << 20;
    private static final int PCIE_REPEATS = 3;

    private HostCalibration() {
    }

    /**
     * @param cuda   the CUDA device the live runs copy through, or null for host buffers
     * @param verify the live runs verify loads on the GPU side (the CUDA copy benchmark does as they do)
     */
    static Result run(ValidationFile.Calibration settings, Path scratch, Geometry geometry, String profileName, CudaDevice cuda,
                      boolean verify, Consumer<String> progress) throws IOException {
        long startNs = System.nanoTime();
        Path file = scratch.resolve("validate-calibration-" + ProcessHandle.current().pid() + ".bin");
        List<Integer> sizes = settings.blockSizesKiB().stream().map(k -> k << 10).toList();
        SweepSettings sweepSettings = new SweepSettings(file, (long) settings.fileMiB() << 20, SweepSettings.ALL_ACCESSES, sizes,
                settings.queueDepths(), Duration.ofMillis(settings.pointMs()), 1, SweepSettings.Backend.BEST, 20_261_201L);
        progress.accept("calibrating: NVMe sweep, " + sweepSettings.pointsPerRepeat() + " points of " + settings.pointMs() + " ms");
        CalibrationSweep.SweepResult sweep;
        try {
            sweep = CalibrationSweep.run(sweepSettings, point -> { });
        } finally {
            CalibrationSweep.deleteFile(file);
        }
        List<NvmeFit.Measurement> measurements = new ArrayList<>();
        int deepest = 1;
        for (MeasuredPoint p : sweep.medians()) {
            measurements.add(new NvmeFit.Measurement(p.read(), p.benchCase().blockBytes(), p.benchCase().queueDepth(),
                    p.bytesPerSecond(), p.meanLatencyNs()));
            deepest = Math.max(deepest, p.benchCase().queueDepth());
        }
        NvmeFit.ClosedLoopFit fit = NvmeFit.fitClosedLoop(measurements, Math.max(64, deepest));
        NvmeProfile nvme = fit.profile();
        SustainedRates.Rates sustained = null;
        if (settings.sustainedMs() > 0) {
            progress.accept(String.format(Locale.ROOT, "calibrating: sustained sequential writes and reads, %,d ms each at %d KiB x %d on a"
                    + " %,d MiB file, then first writes into a fresh preallocated file", settings.sustainedMs(), settings.sustainedBlockBytes() >> 10, settings.sustainedQueueDepth(),
                    settings.sustainedMiB()));
            sustained = SustainedRates.measure(scratch.resolve("validate-sustained-" + ProcessHandle.current().pid() + ".bin"),
                    (long) settings.sustainedMiB() << 20, settings.sustainedBlockBytes(), settings.sustainedQueueDepth(),
                    Duration.ofMillis(settings.sustainedMs()), 20_261_202L);
            nvme = SustainedRates.cap(nvme, sustained);
        }
        Ceilings ceilings = new Ceilings(fit.profile().maxReadBytesPerSecond(), fit.profile().maxWriteBytesPerSecond(), sustained);
        DeviceProfile preset = DeviceProfile.preset("qwen3-8b-h100");
        HostCostBench.HostCosts costs;
        Pcie pcie;
        if (cuda != null && cuda.available()) {
            progress.accept("calibrating: PCIe sweep through CUDA (" + cuda.description() + ")");
            pcie = pcie(cuda, pcieGrid(geometry), preset.pcie());
            progress.accept("calibrating: host costs (io_uring ring thread, CUDA copy enqueues, engine steps)");
            costs = HostCostBench.measureWithCuda(scratch, geometry, settings.hostCostMs(), cuda.api().orElseThrow(), cuda.device(),
                    verify);
        } else {
            pcie = new Pcie(NO_LINK, "none (host buffers)");
            progress.accept("calibrating: host costs (io_uring ring thread, copies, engine steps)");
            costs = HostCostBench.measure(scratch, geometry, settings.hostCostMs());
        }
        DeviceProfile profile = new DeviceProfile(profileName, nvme, pcie.profile(), preset.gpu(), costs.hostProfile());
        return new Result(profile, costs, fit, measurements.size(), sweep.backendName(), pcie, ceilings,
                (System.nanoTime() - startNs) / 1e9);
    }

    /** The copy sizes of the short PCIe grid: 256 KiB to 64 MiB and the workload's lane size, one stream, pinned. */
    static PcieSweep.Settings pcieGrid(Geometry geometry) {
        TreeSet<Long> sizes = new TreeSet<>(List.of(256L << 10, 1L << 20, 4L << 20, 16L << 20, 64L << 20));
        if (geometry.laneBytes() <= PcieSweep.MAX_COPY_BYTES) {
            sizes.add(geometry.laneBytes());
        }
        return new PcieSweep.Settings(List.copyOf(sizes), List.of(1), PCIE_BYTES_PER_POINT, PCIE_REPEATS, List.of());
    }

    /** The PCIe section from a sweep of {@code grid} through {@code cuda}, or the preset's figures and why not. */
    static Pcie pcie(CudaDevice cuda, PcieSweep.Settings grid, PcieProfile preset) {
        try {
            List<PcieSweep.Point> points = new PcieSweep(cuda.api().orElseThrow(), cuda.device(), grid).run(null);
            PcieFit.Fit fit = PcieFit.fit(points);
            return new Pcie(fit.profile(), String.format(Locale.ROOT,
                    "fitted to a PCIe sweep through CUDA on %s (%d sizes from %s to %s, one stream, pinned, %d repeats):"
                            + " host→GPU %.2f GB/s + %,d ns per copy (r² %.5f), GPU→host %.2f GB/s + %,d ns per copy (r² %.5f)",
                    cuda.description(), grid.copySizesBytes().size(), PcieSweep.size(grid.copySizesBytes().getFirst()),
                    PcieSweep.size(grid.copySizesBytes().getLast()), grid.repeats(), fit.hostToDevice().bytesPerSecond() / 1e9,
                    fit.hostToDevice().latencyNs(), fit.hostToDevice().rSquared(), fit.deviceToHost().bytesPerSecond() / 1e9,
                    fit.deviceToHost().latencyNs(), fit.deviceToHost().rSquared()));
        } catch (CudaException | IllegalArgumentException | IllegalStateException e) {
            return new Pcie(preset, "not measured (" + e.getMessage() + "): the preset qwen3-8b-h100's figures");
        }
    }
}
