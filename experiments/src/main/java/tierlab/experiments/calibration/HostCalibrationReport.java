package tierlab.experiments.calibration;

import java.util.List;
import java.util.Locale;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.NvmeProfile;

/**
 * The report of {@code tierlab validate}'s host calibration: the fitted profile's header, saying
 * where each number came from. With host buffers (no GPU, or {@code live.gpu: host}) a live "copy
 * to the GPU" is the model thread's memcpy into a host buffer, which the host-cost terms
 * ({@code copyCallNs}, {@code copyNsPerMiB}) charge, and the link adds nothing. With CUDA the copy
 * engine moves the bytes: the PCIe section is fitted to a short PCIe sweep on this host, and the
 * model thread's copy terms are what enqueueing a copy costs it ({@link HostCostBench#cudaCopyCosts}).
 * The GPU section is the preset's: live mode times compute steps with the same formula
 * ({@code ComputeTiming}), so compute is identical by construction and not validated here.
 *
 * @param points                   grid points of the NVMe sweep
 * @param backend                  the storage port the sweep ran on
 * @param pcieHow                  how the PCIe section came about, in words
 * @param sweptReadBytesPerSecond  the sweep fit's read ceiling, before the sustained rates
 * @param sweptWriteBytesPerSecond the sweep fit's write ceiling, before the sustained rates
 * @param sustained                the sustained rates, or null when not measured
 * @param seconds                  wall time of the calibration
 */
public record HostCalibrationReport(DeviceProfile profile, HostCostBench.HostCosts hostCosts, int points, String backend,
                                    String pcieHow, double sweptReadBytesPerSecond, double sweptWriteBytesPerSecond,
                                    SustainedRates.Rates sustained, double seconds, List<String> warnings, List<String> failures) {

    /** The report of a calibration that measured the host costs ({@link HostCalibrationSettings#plan}). */
    public static HostCalibrationReport of(Calibration.Result result) {
        if (result.hostCosts() == null) {
            throw new IllegalArgumentException("a host calibration's report needs the host costs, which this plan did not measure");
        }
        NvmeProfile swept = result.nvme().profile();
        return new HostCalibrationReport(result.profile(), result.hostCosts(), result.nvme().points().size(),
                result.sweep().backendName(), pcieHow(result), swept.maxReadBytesPerSecond(), swept.maxWriteBytesPerSecond(),
                result.sustained(), result.seconds(), result.warnings(), result.failures());
    }

    /** The PCIe section's origin in words: none (host buffers), fitted to the sweep, or why not. */
    static String pcieHow(Calibration.Result result) {
        String preset = result.plan().grid().baseProfile();
        if (!(result.plan().pcie() instanceof Calibration.PciePlan.Sweep sweep)) {
            return "none (host buffers)";
        }
        PcieSweep.Settings grid = sweep.settings();
        return switch (result.pcie()) {
            case PcieCalibration.Measured m when m.fit() != null -> String.format(Locale.ROOT,
                    "fitted to a PCIe sweep through CUDA on %s (%d sizes from %s to %s, one stream, pinned, %d repeats):"
                            + " host→GPU %.2f GB/s + %,d ns per copy (r² %.5f), GPU→host %.2f GB/s + %,d ns per copy (r² %.5f)",
                    m.device(), grid.copySizesBytes().size(), PcieSweep.size(grid.copySizesBytes().getFirst()),
                    PcieSweep.size(grid.copySizesBytes().getLast()), grid.repeats(), m.fit().hostToDevice().bytesPerSecond() / 1e9,
                    m.fit().hostToDevice().latencyNs(), m.fit().hostToDevice().rSquared(), m.fit().deviceToHost().bytesPerSecond() / 1e9,
                    m.fit().deviceToHost().latencyNs(), m.fit().deviceToHost().rSquared());
            case PcieCalibration.Measured m -> "not measured (" + m.fitFailure() + "): the preset " + preset + "'s figures";
            case PcieCalibration.NotMeasured n -> "not measured (" + n.reason() + "): the preset " + preset + "'s figures";
        };
    }

    /** The profile file's header: where each number came from. */
    public String header(String command) {
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
        String ceilings = sustained == null ? "Ceilings: the sweep fit's (no sustained measurement: calibration.sustainedMs is 0)."
                : String.format(Locale.ROOT, "Ceilings: %s. The sweep fit's ceilings were read %,.0f and write %,.0f B/s; the model"
                + " takes the lower of each (a measurement of the drive, not fitted to any validation workload). %s",
                sustained.describe(), sweptReadBytesPerSecond, sweptWriteBytesPerSecond,
                nvme.maxFreshWriteBytesPerSecond() > 0
                        ? String.format(Locale.ROOT, "First-write ceiling: %,.0f B/s for the bytes of a write that land on L2"
                        + " blocks no write of the run has touched (a live run's L2 file is fresh and preallocated).",
                        nvme.maxFreshWriteBytesPerSecond())
                        : "No first-write ceiling: first writes into the L2 file are charged as any write.");
        String link = cuda ? "PCIe: " + pcieHow + "." : "PCIe: none on this host's live path (host buffers: the copy is the memcpy above).";
        return String.format(Locale.ROOT, """
                Fitted by `%s` on this host (%.0f s): the NVMe model to the live engine's sweep (%d points,
                %s), the host costs from microbenchmarks of the live code paths (HostCostBench):
                  io_uring ring thread: %,d ns per io_uring_enter, %,d ns per operation (fit r² %.3f)
                %s
                                %,d ns per engine step (%d steps timed)
                %s
                NVMe: %d channels, read %,d ns + %,.0f B/s per channel (ceiling %,.0f B/s), write %,d ns + %,.0f B/s per
                channel (ceiling %,.0f B/s). %s
                %s GPU: the preset's (live mode times compute with the same formula).
                %s""",
                command, seconds, points, backend, hostCosts.submissionNs(), hostCosts.perOperationNs(),
                hostCosts.submissionFitR2(), copies.stripTrailing(), hostCosts.engineStepNs(), hostCosts.engineSteps(), fill,
                nvme.channels(), nvme.readBaseLatencyNs(), nvme.readBytesPerSecondPerChannel(), nvme.maxReadBytesPerSecond(),
                nvme.writeBaseLatencyNs(), nvme.writeBytesPerSecondPerChannel(), nvme.maxWriteBytesPerSecond(), ceilings, link,
                problems());
    }

    /** The calibration's failures and warnings, one per line (no blank line: the profile's header keeps them). */
    String problems() {
        if (warnings.isEmpty() && failures.isEmpty()) {
            return "Warnings: none (every fit converged and no coefficient was clamped).";
        }
        StringBuilder text = new StringBuilder();
        failures.forEach(line -> text.append(text.isEmpty() ? "" : "\n").append("CALIBRATION FAILED: ").append(line));
        warnings.forEach(line -> text.append(text.isEmpty() ? "" : "\n").append("WARNING: ").append(line));
        return text.toString();
    }
}
