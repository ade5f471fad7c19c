package tierlab.experiments.validate;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import tierlab.bench.calibration.CalibrationSweep;
import tierlab.bench.calibration.HostCostBench;
import tierlab.bench.calibration.MeasuredPoint;
import tierlab.bench.calibration.NvmeFit;
import tierlab.bench.calibration.SweepSettings;
import tierlab.model.geometry.Geometry;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.NvmeProfile;
import tierlab.sim.device.PcieProfile;

/**
 * Calibrates this host for {@code tierlab validate}: the NVMe model fitted to the live engine's
 * sweep (E5's sweep and fit on a shorter grid) and the host costs from
 * {@link HostCostBench}'s microbenchmarks. Nothing here sees a validation workload.
 *
 * <p>The profile's link: this host has no GPU, so a live "copy to the GPU" is the model thread's
 * memcpy into a host buffer, which the host-cost terms ({@code copyCallNs}, {@code copyNsPerMiB})
 * charge. The PCIe section is then a link that adds nothing (1 PB/s, no latency), so the copy is
 * not charged twice. The GPU section is the preset's: live mode times compute steps with the same
 * formula ({@code ComputeTiming}), so compute is identical by construction and not validated here.
 */
final class HostCalibration {

    /** The fitted profile and what it came from. */
    record Result(DeviceProfile profile, HostCostBench.HostCosts hostCosts, NvmeFit.ClosedLoopFit nvmeFit, int points,
                  String backend, double seconds) {

        /** The profile file's header: where each number came from. */
        String header(String command) {
            NvmeProfile nvme = profile.nvme();
            return String.format(Locale.ROOT, """
                    Fitted by `%s` on this host (%.0f s): the NVMe model to the live engine's sweep (%d points,
                    %s), the host costs from microbenchmarks of the live code paths (HostCostBench):
                      io_uring ring thread: %,d ns per io_uring_enter, %,d ns per operation (fit r² %.3f)
                      model thread: %,d ns per host↔GPU copy call, %,.0f ns per MiB copied (memcpy and payload check, fit r² %.3f),
                                    %,d ns per engine step (%d steps timed)
                      not charged (live-mode emulation, no GPU): %,.0f ns per MiB of computed KV filled with its payload
                    NVMe: %d channels, read %,d ns + %,.0f B/s per channel (ceiling %,.0f B/s), write %,d ns + %,.0f B/s per
                    channel (ceiling %,.0f B/s). PCIe: none on this host (the copy is the memcpy above). GPU: the preset's
                    (live mode times compute with the same formula).""",
                    command, seconds, points, backend, hostCosts.submissionNs(), hostCosts.perOperationNs(),
                    hostCosts.submissionFitR2(), hostCosts.copyCallNs(), hostCosts.copyNsPerMiB(), hostCosts.copyFitR2(),
                    hostCosts.engineStepNs(), hostCosts.engineSteps(), hostCosts.computeFillNsPerMiB(), nvme.channels(), nvme.readBaseLatencyNs(),
                    nvme.readBytesPerSecondPerChannel(), nvme.maxReadBytesPerSecond(), nvme.writeBaseLatencyNs(),
                    nvme.writeBytesPerSecondPerChannel(), nvme.maxWriteBytesPerSecond());
        }
    }

    /** A link that takes no time: on a host without a GPU the copy's cost is the model thread's, charged elsewhere. */
    static final PcieProfile NO_LINK = new PcieProfile(1e15, 0, 1e15, 0);

    private HostCalibration() {
    }

    static Result run(ValidationFile.Calibration settings, Path scratch, Geometry geometry, String profileName,
                      Consumer<String> progress) throws IOException {
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
        progress.accept("calibrating: host costs (io_uring ring thread, copies, engine steps)");
        HostCostBench.HostCosts costs = HostCostBench.measure(scratch, geometry, settings.hostCostMs());
        DeviceProfile preset = DeviceProfile.preset("qwen3-8b-h100");
        DeviceProfile profile = new DeviceProfile(profileName, fit.profile(), NO_LINK, preset.gpu(), costs.hostProfile());
        return new Result(profile, costs, fit, measurements.size(), sweep.backendName(), (System.nanoTime() - startNs) / 1e9);
    }
}
