package tierlab.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.model.geometry.ModelSection;
import tierlab.model.geometry.ModelShape;
import tierlab.model.io.ComputeTiming;
import tierlab.model.io.StepShape;

/** A GPU profile's compute section: the kinds by name, the default, files that name them, bad files. */
final class GpuComputeSectionTest {

    @TempDir
    Path dir;

    private static final StepShape PREFILL = new StepShape(List.of(new StepShape.Sequence(1, 2650, 100, false),
            new StepShape.Sequence(2, 1, 4000, true)));

    @Test
    void withoutASectionAndWithABareLinearSectionTheStepTimesAreThePresetsFormula() {
        GpuProfile gpu = DeviceProfile.preset("qwen3-8b-h100").gpu();
        assertEquals("linear", gpu.computeKind());
        ComputeTiming formula = new ComputeTiming(2_000_000, 34_000, 1.5, 150_000);
        // 2 ms + 34 µs × 2650 + 1.5 ns × 2650 × 100 + 150 µs + 1.5 ns × 4000.
        assertEquals(92_653_500, formula.stepNs(PREFILL));
        assertEquals(formula.stepNs(PREFILL), gpu.computeModel().stepNs(PREFILL));
        GpuProfile bare = gpu.withCompute(new LinearSection(null, null, null, null));
        assertEquals("linear", bare.computeKind());
        assertEquals(formula.stepNs(PREFILL), bare.computeModel().stepNs(PREFILL));
        assertEquals(2_000_000 + 150_000 + 6_000, gpu.withCompute(new LinearSection(null, 0.0, null, null)).computeModel()
                .stepNs(new StepShape(List.of(new StepShape.Sequence(2, 1, 4000, true)))));
    }

    @Test
    void theKindsAreRegisteredByName() {
        assertEquals(List.of("linear", "roofline", "table", "kernel-roofline"), ComputeModels.KINDS.names());
        assertEquals(List.of("h100", "h200"), GpuSpecs.GPUS.names());
        assertEquals(4.8e12, GpuSpecs.get("gpu", "h200").hbmBytesPerSecond());
        assertEquals(141e9, GpuSpecs.H200.memoryBytes());
        assertEquals(GpuSpecs.H100.peakBf16FlopsPerSecond(), GpuSpecs.H200.peakBf16FlopsPerSecond());
    }

    @Test
    void aDeviceProfileCanNameARooflineAndRoundTrips() throws Exception {
        String preset = new String(DeviceProfile.class.getResourceAsStream("/profiles/qwen3-8b-h100.yaml").readAllBytes());
        Path file = dir.resolve("roofline.yaml");
        Files.writeString(file, preset.replace("  decodeNsPerSequence: 150000", "  decodeNsPerSequence: 150000\n"
                + "  compute:\n    kind: roofline\n    model: {preset: qwen3-8b}\n    computeEfficiency: 0.5\n"
                + "    memoryEfficiency: 0.8\n    stepOverheadNs: 1000000\n    sequenceNs: 10000"));
        DeviceProfile profile = DeviceProfile.load(file);
        assertEquals("roofline", profile.gpu().computeKind());
        // The hand-computed decode of RooflineComputeTest, on the profile's GPU (h100) by name.
        assertEquals(7_177_504, profile.gpu().computeModel().stepNs(new StepShape(List.of(
                new StepShape.Sequence(1, 1, 1000, true)))));
        Path again = dir.resolve("again.yaml");
        Files.writeString(again, profile.toYaml("written back"));
        assertTrue(Files.readString(again).contains("kind: roofline"), Files.readString(again));
        assertEquals(profile, DeviceProfile.load(again));
        assertFalse(DeviceProfile.preset("qwen3-8b-h100").toYaml("").contains("compute"));
    }

    @Test
    void anExperimentsModelReplacesTheOneARooflineWasFittedOn() {
        RooflineSection fitted = new RooflineSection(GpuSpecs.H100, ModelSection.ofPreset("llama-3.1-8b"), null, 0.5, 0.8,
                1e6, 1e4, null);
        ComputeSection qwen = fitted.forModel(ModelShape.QWEN3_8B);
        assertEquals(7_177_504, qwen.open(null).stepNs(new StepShape(List.of(new StepShape.Sequence(1, 1, 1000, true)))));
        assertEquals(fitted.computeEfficiency(), ((RooflineSection) qwen).computeEfficiency());
    }

    @Test
    void computeProfileFilesLoadAndTheirTablesAreRelativeToThem() throws Exception {
        Files.writeString(dir.resolve("steps.csv"), """
                kind,batch,new_tokens,context_tokens,ms
                prefill,1,512,0,10
                decode,1,1,1000,5
                """);
        Path profile = dir.resolve("table.yaml");
        Files.writeString(profile, "kind: table\ntable: steps.csv\n");
        ComputeSection section = ComputeProfiles.load(profile);
        TableSection table = assertInstanceOf(TableSection.class, section);
        assertEquals(dir.resolve("steps.csv").toAbsolutePath().normalize().toString(), table.table());
        assertEquals(10_000_000, table.open(null).stepNs(new StepShape(List.of(new StepShape.Sequence(1, 512, 0, false)))));
        assertInstanceOf(TableSection.class, ComputeProfiles.load(dir.resolve("steps.csv")));
    }

    @Test
    void badComputeProfilesAreOneLineNamingTheFileLineAndField() throws Exception {
        assertBad("kind: magic\n", "unknown compute model kind 'magic' (known: linear, roofline, table, kernel-roofline)");
        assertBad("kind: roofline\nmodel: {preset: qwen3-8b}\ncomputeEfficiency: 0.5\nmemoryEfficiency: 0.8\nsequnceNs: 3\n",
                "line 5: unknown field 'sequnceNs'");
        assertBad("kind: roofline\nmodel: {preset: qwen3-8b}\ncomputeEfficiency: 2\nmemoryEfficiency: 0.8\n",
                "compute.computeEfficiency must be in (0, 1], was 2.0");
        assertBad("kind: roofline\nmodel: {preset: qwen3-8b, layrs: 3}\ncomputeEfficiency: 0.5\nmemoryEfficiency: 0.8\n",
                "line 2: unknown field 'model.layrs'");
        assertBad("kind: roofline\nmodel: {preset: qwen3-8b}\ncomputeEfficiency: 0.5\n",
                "compute.memoryEfficiency: missing");
    }

    private void assertBad(String text, String expected) throws Exception {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, text);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ComputeProfiles.load(file));
        assertTrue(e.getMessage().startsWith(file.toString()) && e.getMessage().contains(expected), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }
}
