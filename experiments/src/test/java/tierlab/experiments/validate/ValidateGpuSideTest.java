package tierlab.experiments.validate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import tierlab.experiments.calibration.Calibration;
import tierlab.experiments.calibration.HostCalibrationReport;
import tierlab.experiments.calibration.HostCalibrationSettings;
import tierlab.experiments.calibration.HostCostBench;
import tierlab.experiments.calibration.PcieCalibration;
import tierlab.experiments.calibration.PcieSweep;
import tierlab.engine.IoUringBackend;
import tierlab.engine.cuda.CudaDevice;
import tierlab.engine.cuda.FakeCuda;
import tierlab.experiments.CommandException;
import tierlab.experiments.calibration.SustainedRates;
import tierlab.experiments.cli.Main;
import tierlab.experiments.run.RunPasses;
import tierlab.hunt.testkit.CommandRun;
import tierlab.model.geometry.Geometry;
import tierlab.model.request.RequestSpec;
import tierlab.model.testkit.TestDirectories;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.HostProfile;
import tierlab.sim.device.PcieProfile;

/**
 * validate's GPU side without a GPU: the file's {@code live} section and {@code --gpu}, the refusal
 * of {@code cuda} where there is no device, the host-buffer fallback named with its reason, the
 * calibration's choice of link and copy costs (over {@link FakeCuda}), and the live runs' payload
 * checks counted once however many passes a run has.
 */
class ValidateGpuSideTest {

    private static final String WORKLOAD = """
            workloads:
              prefill:
                workload: {type: long-prefill, model: tiny, prompts: 4, promptTokens: 256}
                store: {l1CapacityGiB: 0.001, l2CapacityGiB: 0.01}
                scheduler: {concurrency: 4, gpuKvBlocks: 256, prefetchMaxRequests: 0}
            """;

    private static Path write(String name, String text) throws IOException {
        Path dir = TestDirectories.underTarget("validate-gpu-" + name);
        Files.writeString(dir.resolve("profile.yaml"), DeviceProfile.preset("qwen3-8b-h100").withName("test-host")
                .toYaml("the preset, named as a fitted profile would be"));
        Path file = dir.resolve(name + ".yaml");
        Files.writeString(file, text);
        return file;
    }

    @Test
    void theLiveSectionMeansWhatItMeansInAnExperimentFile() throws IOException {
        ValidationFile defaults = ValidationFile.load(write("defaults", "name: d\n" + WORKLOAD), "qwen3-8b-h100");
        assertEquals(new ValidationFile.Live("auto", true), defaults.live());
        ValidationFile set = ValidationFile.load(write("set", "name: s\nlive: {gpu: cuda, verify: false}\n" + WORKLOAD),
                "qwen3-8b-h100");
        assertEquals(new ValidationFile.Live("cuda", false), set.live());
        assertEquals("host", ValidationFile.load(write("host", "name: h\nlive: {gpu: host}\n" + WORKLOAD), "qwen3-8b-h100")
                .live().gpu());
    }

    @Test
    void theH200FileAsksForCudaWithEveryLoadVerified() {
        Path file = Path.of("..", "docs", "hosts", "h200", "validation-h200.yaml");
        ValidationFile h200 = ValidationFile.load(file, "qwen3-8b-h100");
        assertEquals(new ValidationFile.Live("cuda", true), h200.live());
        assertEquals(List.of("e1-like", "e2-like", "mooncake-slice", "qwen-multiturn", "e1-doorkeeper"),
                List.copyOf(h200.workloads().keySet()));
        // The workloads the NVMe and host terms were tuned on are marked so; the headline is the other two.
        assertEquals(List.of("qwen-multiturn", "e1-doorkeeper"), h200.workloads().values().stream()
                .filter(ValidationFile.Workload::heldOut).map(ValidationFile.Workload::name).toList());
        // The same workloads as the catalogue's file, so the H200 figures compare with the host-buffer run.
        ValidationFile catalogue = ValidationFile.load(Path.of("catalog", "validation.yaml"), "qwen3-8b-h100");
        for (String name : catalogue.workloads().keySet()) {
            assertEquals(catalogue.workloads().get(name).config().workload().toString(),
                    h200.workloads().get(name).config().workload().toString(), name);
            assertEquals(catalogue.workloads().get(name).role(), h200.workloads().get(name).role(), name);
        }
    }

    @Test
    void theSustainedMeasurementIsSetInTheCalibrationSection() throws IOException {
        HostCalibrationSettings defaults = ValidationFile.load(write("sustained-defaults", "name: d\n" + WORKLOAD), "qwen3-8b-h100")
                .calibration();
        assertEquals(3000, defaults.sustainedMs());
        assertEquals(4096, defaults.sustainedMiB());
        assertEquals(2304 << 10, defaults.sustainedBlockBytes(), "the largest sweep size");
        assertEquals(16, defaults.sustainedQueueDepth(), "the deepest sweep depth");
        HostCalibrationSettings set = ValidationFile.load(write("sustained-set", "name: s\ncalibration: {queueDepths: [1, 32],"
                + " sustainedMs: 0, sustainedMiB: 64, sustainedBlockKiB: 512}\n" + WORKLOAD), "qwen3-8b-h100").calibration();
        assertEquals(0, set.sustainedMs());
        assertEquals(512 << 10, set.sustainedBlockBytes());
        assertEquals(32, set.sustainedQueueDepth());
        assertEachIsOneLineNamingIt(new String[][] {
                {"calibration: {sustainedMs: -1}", "sustainedMs: must be a whole number from 0 to 60000"},
                {"calibration: {sustainedBlockKiB: 6}", "calibration.sustainedBlockKiB: must be a multiple of 4"},
                {"calibration: {sustainedMiB: 16, sustainedBlockKiB: 32768}", "no larger than sustainedMiB"},
                {"calibration: {sustainedSeconds: 3}", "line 2: unknown field 'calibration.sustainedSeconds' (known in calibration:"}});
    }

    /** Each {line, expected words}: a file with that line is refused in one line naming the file and the words. */
    private static void assertEachIsOneLineNamingIt(String[][] cases) throws IOException {
        for (String[] bad : cases) {
            Path file = write("bad", "name: bad\n" + bad[0] + "\n" + WORKLOAD);
            CommandException e = assertThrows(CommandException.class, () -> ValidationFile.load(file, "qwen3-8b-h100"));
            assertTrue(e.getMessage().contains(bad[1]) && e.getMessage().contains("bad.yaml"), e.getMessage());
            assertEquals(1, e.getMessage().lines().count(), e.getMessage());
        }
    }

    @Test
    void theHeaderSaysWhatTheSustainedMeasurementDidToTheCeilings() {
        DeviceProfile preset = DeviceProfile.preset("qwen3-8b-h100");
        HostCostBench.HostCosts memcpy = new HostCostBench.HostCosts(18_000, 3_000, 1, 0, 782_000, 0.84, 24_000, 500, "io_uring",
                1_000_000, HostCostBench.CopyPath.MEMCPY);
        SustainedRates.Rates sustained = new SustainedRates.Rates(2.5e9, 2.2e9, 2304 << 10, 16, 3000, 4096L << 20, "io_uring");
        String header = new HostCalibrationReport(profile(preset, Calibration.NO_LINK, memcpy.hostProfile()), memcpy, 54,
                "io_uring", "none (host buffers)", 2.16e9, 3.1e9, sustained, 60, List.of(), List.of()).header("tierlab validate v.yaml");
        assertTrue(header.contains("Ceilings: sustained sequential rates over 3,000 ms each at 2304 KiB × queue depth 16 on a"
                + " 4,096 MiB file (io_uring): writes 2,200,000,000 B/s, reads 2,500,000,000 B/s; first writes not measured."), header);
        assertTrue(header.contains("No first-write ceiling: first writes into the L2 file are charged as any write."), header);
        assertTrue(header.contains("The sweep fit's ceilings were read 2,160,000,000 and write 3,100,000,000 B/s"), header);
        assertTrue(header.contains("not fitted to any validation workload"), header);
    }

    @Test
    void aBadLiveFieldIsOneLineNamingIt() throws IOException {
        assertEachIsOneLineNamingIt(new String[][] {
                {"live: {gpu: gpu0}", "live.gpu: unknown value 'gpu0' (known: auto, cuda, host)"},
                {"live: {verify: yes please}", "line 2: live.verify: wrong type: expected true or false"},
                {"live: {gpus: cuda}", "line 2: unknown field 'live.gpus' (known in live: gpu, verify)"},
                {"live: cuda", "line 2: live: wrong type: expected a mapping of fields"}});
    }

    @Test
    void aBadGpuOptionIsOneLine() throws IOException {
        Path file = write("option", "name: option\nprofile: profile.yaml\n" + WORKLOAD);
        CommandRun run = CommandRun.of(Main.newCommandLine(), "validate", file.toString(), "--gpu", "gpu0", "--out",
                file.resolveSibling("out").toString());
        assertNotEquals(0, run.exitCode());
        assertTrue(run.err().contains("--gpu: unknown value 'gpu0'") && !run.err().contains("Exception"), run.err());
        assertFalse(Files.exists(file.resolveSibling("out")));
    }

    @Test
    void cudaWithoutADeviceIsRefusedBeforeAnythingIsMeasured() throws IOException {
        CudaDevice device = CudaDevice.probe();
        Assumptions.assumeFalse(device.available(), "this host has a CUDA device: nothing to refuse");
        Path file = write("cuda", "name: cuda\nlive: {gpu: cuda}\n" + WORKLOAD);
        Path out = file.resolveSibling("out");
        // No profile: a refusal after calibrating would take seconds and write a scratch folder; this one comes first.
        CommandRun run = CommandRun.of(Main.newCommandLine(), "validate", file.toString(), "--out", out.toString());
        assertNotEquals(0, run.exitCode());
        assertEquals(1, run.err().strip().lines().count(), run.err());
        assertTrue(run.err().contains("live.gpu is cuda but there is no usable CUDA device: " + device.description()), run.err());
        assertFalse(Files.exists(out));
        assertFalse(run.out().contains("calibrating"), run.out());
    }

    @Test
    void withoutADeviceTheReportSaysHostBuffersAndWhy() throws IOException {
        Assumptions.assumeTrue(IoUringBackend.probe().available(), () -> "io_uring unavailable: " + IoUringBackend.probe().cause());
        CudaDevice device = CudaDevice.probe();
        Assumptions.assumeFalse(device.available(), "this host has a CUDA device: auto takes it");
        // The file's repeats are the default 3; --repeats 1 makes one run, and the report says the runs made.
        Path file = write("auto", "name: auto\nprofile: profile.yaml\n" + WORKLOAD);
        Path out = file.resolveSibling("out");
        CommandRun run = CommandRun.of(Main.newCommandLine(), "validate", file.toString(), "--out", out.toString(), "--repeats", "1");
        assertEquals(0, run.exitCode(), run.out() + run.err());
        String hostBuffers = "host buffers: " + device.description();
        assertTrue(run.out().contains("live GPU side: " + hostBuffers), run.out());
        String report = Files.readString(out.resolve(ValidationReport.REPORT));
        assertTrue(report.contains("GPU copies " + hostBuffers), report);
        assertTrue(report.contains("Each workload ran live 1 time(s)"), "the runs made, not a default");
        // --gpu host overrides the file's auto, and says so.
        run = CommandRun.of(Main.newCommandLine(), "validate", file.toString(), "--out", out.toString(), "--gpu", "host",
                "--repeats", "1");
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(Files.readString(out.resolve(ValidationReport.REPORT)).contains("GPU copies host buffers: live.gpu is host"));
    }

    /**
     * A live runtime's report carries totals since it opened, not its pass's share: three passes (the
     * cold one, the warm one, the warm one again under new request ids) must count each load's check
     * once, as many as the lanes loaded, not the first passes' again with each later one.
     */
    @Test
    void payloadChecksAreCountedOnceOverSeveralPasses() throws IOException {
        Assumptions.assumeTrue(IoUringBackend.probe().available(), () -> "io_uring unavailable: " + IoUringBackend.probe().cause());
        Path file = write("passes", "name: passes\n" + WORKLOAD);
        ValidationFile validation = ValidationFile.load(file, "qwen3-8b-h100");
        var config = validation.workloads().get("prefill").config();
        Path scratch = file.resolveSibling("scratch");
        ValidationRuns runs = ValidationRuns.hostBuffers(scratch);
        RunPasses two = runs.passes(config);
        List<RequestSpec> again = new ArrayList<>();
        for (RequestSpec r : two.requests().get(1)) {
            again.add(new RequestSpec(r.requestId() + 1_000, r.arrivalNs(), r.promptTokens(), r.outputTokens(), r.chain()));
        }
        RunPasses three = new RunPasses(List.of("cold", "warm", "warm-again"),
                List.of(two.requests().get(0), two.requests().get(1), again), two.warmGapNs(), two.clientConcurrency());
        Observation live = runs.live(config, three, 0);
        assertNull(live.failure(), live.failure());
        assertEquals(3, live.passes().size());
        assertTrue(live.loadedLanes() > 0, "the warm passes load from the store");
        assertEquals(live.loadedLanes(), live.realMatches(), "every lane loaded is checked once");
        assertEquals(0, live.realMismatches());
        assertEquals("host buffers: live.gpu is host", live.gpuCopies());
    }

    @Test
    void withCudaTheLinkIsFittedAndTheCopyCostsAreTheEnqueues() {
        FakeCuda fake = new FakeCuda(true);
        CudaDevice device = CudaDevice.probe(fake, 0, "fake libcudart");
        assertTrue(device.available(), device.description());
        Geometry geometry = Geometry.qwen3_8b();
        PcieSweep.Settings grid = new PcieSweep.Settings(List.of(256L << 10, 4L << 20, 16L << 20), List.of(1), 32L << 20, 1, List.of());
        PcieCalibration.Outcome outcome = Calibration.pcie(device, grid, null);
        PcieCalibration.Measured measured = assertInstanceOf(PcieCalibration.Measured.class, outcome);
        PcieProfile pcie = PcieCalibration.profile(outcome, DeviceProfile.preset("qwen3-8b-h100").pcie(), "qwen3-8b-h100");
        assertNotNull(measured.fit(), measured.fitFailure());
        assertNotEquals(Calibration.NO_LINK.withSource(pcie.source()), pcie);
        assertTrue(pcie.source().startsWith("measured by tierlab E5 through CUDA on " + device.description()), pcie.source());
        assertTrue(pcie.h2dBytesPerSecond() > 0 && pcie.d2hBytesPerSecond() > 0, pcie.toString());
        // The short grid covers the workload's lane size (a Qwen3-8B block of 16 tokens: 2.25 MiB per lane at tp 1).
        assertTrue(HostCalibrationSettings.pcieGrid(geometry).copySizesBytes().contains(geometry.laneBytes()));
        assertTrue(fake.leaksNothing(), fake.leftovers());
    }

    @Test
    void theProfileHeaderSaysWhichCopyPathWasCalibrated() {
        DeviceProfile preset = DeviceProfile.preset("qwen3-8b-h100");
        HostCostBench.HostCosts memcpy = new HostCostBench.HostCosts(18_000, 3_000, 1, 0, 782_000, 0.84, 24_000, 500, "io_uring",
                1_000_000, HostCostBench.CopyPath.MEMCPY);
        HostCostBench.HostCosts cuda = new HostCostBench.HostCosts(18_000, 3_000, 1, 9_000, 1_500, 0.99, 24_000, 500, "io_uring",
                0, HostCostBench.CopyPath.CUDA);
        PcieProfile fitted = new PcieProfile(55e9, 3_000, 55e9, 2_000);
        String host = new HostCalibrationReport(profile(preset, Calibration.NO_LINK, memcpy.hostProfile()), memcpy, 54,
                "io_uring", "none (host buffers)", 2e9, 3e9, null, 60, List.of(), List.of()).header("tierlab validate v.yaml");
        assertTrue(host.contains("memcpy and payload check") && host.contains("PCIe: none on this host's live path"), host);
        assertFalse(host.contains("CUDA"), host);
        String withCuda = new HostCalibrationReport(profile(preset, fitted, cuda.hostProfile()), cuda, 54, "io_uring",
                "fitted to a PCIe sweep through CUDA on NVIDIA H200", 2e9, 3e9, null, 60, List.of(),
                List.of()).header("tierlab validate v.yaml");
        assertTrue(withCuda.contains("model thread (CUDA copy path): 9,000 ns per host↔GPU copy call, 1,500 ns per MiB"), withCuda);
        assertTrue(withCuda.contains("PCIe: fitted to a PCIe sweep through CUDA on NVIDIA H200."), withCuda);
        assertFalse(withCuda.contains("memcpy and payload check"), withCuda);
    }

    private static DeviceProfile profile(DeviceProfile preset, PcieProfile pcie, HostProfile host) {
        return new DeviceProfile("t", preset.nvme(), pcie, preset.gpu(), host);
    }
}
