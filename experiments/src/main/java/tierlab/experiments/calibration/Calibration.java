package tierlab.experiments.calibration;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import tierlab.engine.cuda.CudaDevice;
import tierlab.model.geometry.Geometry;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.HostProfile;
import tierlab.sim.device.NvmeProfile;
import tierlab.sim.device.PcieProfile;

/**
 * The one way to obtain a calibration of this host: a {@link Plan} in (the NVMe grid, and
 * optionally the PCIe sweep, the sustained rates and the host costs), a {@link Result} out (the
 * fitted device profile, the measured points with the fitted model's prediction of each, and what
 * every part found, for a report). Experiment E5 ({@code tierlab run} of a {@code kind: calibration}
 * file, {@link CalibrationExperiment}), {@code tierlab validate}'s host calibration
 * ({@link HostCalibrationSettings#plan}, on a shorter grid) and {@code tierlab bench pcie}
 * ({@link #pcie}) all come through here, so they share one sweep, one NVMe fit ({@link #fit}) and one
 * PCIe fit.
 *
 * <pre>
 *   NVMe sweep (CalibrationSweep) → closed-loop fit (NvmeCalibration) → sustained rates lower the ceilings
 *   → PCIe sweep and fit through CUDA, or the preset's figures, or no link (host buffers)
 *   → host costs (HostCostBench), or the preset's host section
 *   → one DeviceProfile: the base preset's GPU, the fitted NVMe and PCIe, the host's costs
 * </pre>
 */
public final class Calibration {

    /** A link that takes no time: on a host without a GPU the copy's cost is the model thread's, charged elsewhere. */
    public static final PcieProfile NO_LINK = new PcieProfile(1e15, 0, 1e15, 0);

    /** How the profile's PCIe section comes about. */
    public sealed interface PciePlan {
        /** Sweep host↔GPU copies through CUDA on {@code device} (null: the first GPU found) and fit them. */
        record Sweep(CudaDevice device, PcieSweep.Settings settings) implements PciePlan {}

        /** Not measured, for {@code reason}: the base preset's figures, marked as such. */
        record Skip(String reason) implements PciePlan {}

        /**
         * The live runs copy through host buffers: a "copy to the GPU" is the model thread's memcpy,
         * which the host costs charge, so the link adds nothing ({@link #NO_LINK}) and is not charged twice.
         */
        record HostBuffers() implements PciePlan {}
    }

    /** Sequential rates sustained over seconds ({@link SustainedRates}), which may lower the fit's ceilings. */
    public record Sustained(Path file, long fileBytes, int blockBytes, int queueDepth, Duration duration, long seed) {}

    /** The host-cost microbenchmarks ({@link HostCostBench}) in {@code scratch} at {@code geometry}. */
    public record HostCostPlan(Path scratch, Geometry geometry, long budgetMs, boolean verify) {}

    /**
     * What to measure. {@code grid} is always swept and fitted; {@code sustained} and
     * {@code hostCosts} may be null (none: the fit's ceilings, the base preset's host section).
     */
    public record Plan(CalibrationSettings grid, PciePlan pcie, Sustained sustained, HostCostPlan hostCosts) {}

    /** Where the progress lines go: one per part measured, one per NVMe run; either may be null. */
    public record Progress(Consumer<String> steps, Consumer<String> points) {
        public static final Progress NONE = new Progress(null, null);

        void step(String line) {
            if (steps != null) {
                steps.accept(line);
            }
        }
    }

    /**
     * A calibration: the fitted profile and everything it came from.
     *
     * @param sweep     every measured NVMe run
     * @param nvme      the closed-loop fit, each measured point beside its prediction, and the error figures
     * @param sustained the sustained rates, or null when not measured
     * @param pcie      the PCIe sweep and fit, or why PCIe was not measured
     * @param hostCosts the host costs, or null when the base preset's host section was kept
     * @param seconds   wall time of the whole calibration (0 for measurements handed in)
     * @param warnings  what the fits did that their figures hide (a fit that did not converge, a clamped
     *                  coefficient; {@link FitWarnings}), empty when none
     * @param failures  what the plan asked for and the calibration could not deliver (a PCIe sweep that fell
     *                  back to the preset's figures), empty when none: a run that needs the profile fails on them
     */
    public record Result(Plan plan, DeviceProfile profile, CalibrationSweep.SweepResult sweep, NvmeCalibration nvme,
                         SustainedRates.Rates sustained, PcieCalibration.Outcome pcie, HostCostBench.HostCosts hostCosts,
                         double seconds, List<String> warnings, List<String> failures) {

        public boolean failed() {
            return !failures.isEmpty();
        }
    }

    private Calibration() {
    }

    /** Measures everything {@code plan} asks for and fits the profile. */
    public static Result run(Plan plan, Progress progress) throws IOException {
        long startNs = System.nanoTime();
        try (FitWarnings.Scope warnings = FitWarnings.open()) {
            CalibrationSweep.SweepResult sweep = sweep(plan.grid(), progress);
            NvmeCalibration nvme = fit(sweep);
            SustainedRates.Rates sustained = sustained(plan.sustained(), progress);
            PcieCalibration.Outcome pcie = pcie(plan.pcie(), progress);
            HostCostBench.HostCosts costs = hostCosts(plan, pcie, progress);
            return new Result(plan, profile(plan, nvme, sustained, pcie, costs), sweep, nvme, sustained, pcie, costs,
                    (System.nanoTime() - startNs) / 1e9, warnings.lines(), failures(plan, pcie));
        }
    }

    /** A PCIe sweep the plan asked for that ended in the preset's figures: the profile does not describe this host's link. */
    static List<String> failures(Plan plan, PcieCalibration.Outcome pcie) {
        if (!(plan.pcie() instanceof PciePlan.Sweep)) {
            return List.of();
        }
        return switch (pcie) {
            case PcieCalibration.Measured m when m.fit() != null -> List.of();
            case PcieCalibration.Measured m -> List.of("PCIe measured but not fitted (" + m.fitFailure()
                    + "): the profile fell back to the preset's figures");
            case PcieCalibration.NotMeasured n -> List.of("PCIe not measured (" + n.reason()
                    + "): the profile fell back to the preset's figures");
        };
    }

    /**
     * Fits a profile to measurements already taken (a sweep read back, or synthetic ones in a test),
     * measuring nothing: a plan's sustained rates and host costs are left out, PCIe is {@code pcie}.
     */
    public static Result fromSweep(Plan plan, CalibrationSweep.SweepResult sweep, PcieCalibration.Outcome pcie) {
        try (FitWarnings.Scope warnings = FitWarnings.open()) {
            NvmeCalibration nvme = fit(sweep);
            return new Result(plan, profile(plan, nvme, null, pcie, null), sweep, nvme, null, pcie, null, 0, warnings.lines(),
                    failures(plan, pcie));
        }
    }

    /** The NVMe sweep of {@code grid}; the test file is deleted after when the grid says so, whatever happens. */
    public static CalibrationSweep.SweepResult sweep(CalibrationSettings grid, Progress progress) throws IOException {
        SweepSettings sweep = grid.toSweep();
        progress.step(String.format(Locale.ROOT, "calibrating: NVMe sweep, %d points of %d ms%s", sweep.pointsPerRepeat(),
                sweep.durationPerPoint().toMillis(), grid.repeats() > 1 ? " x " + grid.repeats() + " repeats" : ""));
        try {
            return CalibrationSweep.run(sweep, point -> {
                if (progress.points() != null) {
                    progress.points().accept(point.toString());
                }
            });
        } finally {
            if (grid.deleteFileAfter()) {
                CalibrationSweep.deleteFile(grid.file());
            }
        }
    }

    /** The NVMe model fitted to a sweep: the fit every caller uses. */
    public static NvmeCalibration fit(CalibrationSweep.SweepResult sweep) {
        return NvmeCalibration.of(sweep);
    }

    /** The PCIe part alone ({@code tierlab bench pcie}): the sweep through {@code device} and its fit, or why not. */
    public static PcieCalibration.Outcome pcie(CudaDevice device, PcieSweep.Settings settings, Consumer<String> progress) {
        return PcieCalibration.measure(device, settings, progress);
    }

    private static PcieCalibration.Outcome pcie(PciePlan plan, Progress progress) {
        return switch (plan) {
            case PciePlan.Skip skip -> new PcieCalibration.NotMeasured(skip.reason());
            case PciePlan.HostBuffers ignored -> new PcieCalibration.NotMeasured("none (host buffers)");
            case PciePlan.Sweep sweep -> {
                CudaDevice device = sweep.device() != null ? sweep.device() : CudaDevice.probe();
                if (device.available()) {
                    progress.step("calibrating: PCIe sweep through CUDA (" + device.description() + ")");
                }
                // Its outcome is a line of the report: the progress stays one line per measured NVMe run.
                yield pcie(device, sweep.settings(), null);
            }
        };
    }

    private static SustainedRates.Rates sustained(Sustained plan, Progress progress) throws IOException {
        if (plan == null) {
            return null;
        }
        progress.step(String.format(Locale.ROOT, "calibrating: sustained sequential writes and reads, %,d ms each at %d KiB x %d on a"
                        + " %,d MiB file, then first writes into a fresh preallocated file", plan.duration().toMillis(),
                plan.blockBytes() >> 10, plan.queueDepth(), plan.fileBytes() >> 20));
        return SustainedRates.measure(plan.file(), plan.fileBytes(), plan.blockBytes(), plan.queueDepth(), plan.duration(),
                plan.seed());
    }

    /** The host costs on the live runs' copy path: CUDA's enqueues where the link was swept through a GPU, else memcpy. */
    private static HostCostBench.HostCosts hostCosts(Plan plan, PcieCalibration.Outcome pcie, Progress progress) throws IOException {
        HostCostPlan costs = plan.hostCosts();
        if (costs == null) {
            return null;
        }
        if (plan.pcie() instanceof PciePlan.Sweep sweep && sweep.device() != null && sweep.device().available()) {
            progress.step("calibrating: host costs (io_uring ring thread, CUDA copy enqueues, engine steps)");
            return HostCostBench.measureWithCuda(costs.scratch(), costs.geometry(), costs.budgetMs(),
                    sweep.device().api().orElseThrow(), sweep.device().device(), costs.verify());
        }
        progress.step("calibrating: host costs (io_uring ring thread, copies, engine steps)");
        return HostCostBench.measure(costs.scratch(), costs.geometry(), costs.budgetMs());
    }

    /** The base preset with the fitted NVMe (capped by the sustained rates), the PCIe section and the host's costs. */
    static DeviceProfile profile(Plan plan, NvmeCalibration fit, SustainedRates.Rates sustained, PcieCalibration.Outcome pcie,
                                 HostCostBench.HostCosts costs) {
        CalibrationSettings grid = plan.grid();
        DeviceProfile preset = DeviceProfile.preset(grid.baseProfile());
        NvmeProfile nvme = sustained == null ? fit.profile() : SustainedRates.cap(fit.profile(), sustained);
        PcieProfile link = plan.pcie() instanceof PciePlan.HostBuffers ? NO_LINK
                : PcieCalibration.profile(pcie, preset.pcie(), grid.baseProfile());
        HostProfile host = costs == null ? preset.host() : costs.hostProfile();
        return new DeviceProfile(grid.profileName(), preset.storage(), nvme, link, preset.gpu(), host);
    }
}
