package tierlab.experiments.compute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.experiments.cli.Main;
import tierlab.hunt.testkit.CommandRun;
import tierlab.model.geometry.ModelShape;
import tierlab.sim.device.ComputeProfiles;
import tierlab.sim.device.GpuSpecs;
import tierlab.sim.device.RooflineCompute;
import tierlab.sim.device.RooflineSection;

/**
 * {@code tierlab compute fit} recovers the coefficients a synthetic table was generated from, records
 * clamps, and {@code compute predict} reproduces the table from the profile it wrote.
 */
final class ComputeCommandTest {

    @TempDir
    Path folder;

    /** The profile the synthetic tables come from: Qwen3-8B on an H200. */
    private static RooflineCompute known(String form) {
        return new RooflineCompute(GpuSpecs.H200, ModelShape.QWEN3_8B, form, 0.55, 0.8, 1_500_000, 20_000);
    }

    /** Prefills compute-bound, decodes memory-bound, batches that separate the per-sequence cost. */
    private static String table(RooflineCompute compute, double scale) {
        StringBuilder csv = new StringBuilder("kind,batch,new_tokens,context_tokens,ms\n");
        for (int batch : new int[] {1, 2, 4}) {
            for (long newTokens : new long[] {256, 1024, 4096}) {
                for (long context : new long[] {0, 2048}) {
                    csv.append(row("prefill", compute, batch, newTokens, context, scale));
                }
            }
        }
        for (int batch : new int[] {1, 8, 32}) {
            for (long context : new long[] {512, 4096, 16384}) {
                csv.append(row("decode", compute, batch, 1, context, scale));
            }
        }
        return csv.toString();
    }

    private static String row(String kind, RooflineCompute compute, int batch, long newTokens, long context, double scale) {
        double ms = compute.stepNs(compute.cost(batch, newTokens, context)) / 1e6 * scale;
        return String.format(Locale.ROOT, "%s,%d,%d,%d,%.6f%n", kind, batch, newTokens, context, ms);
    }

    private Path write(String name, String text) throws IOException {
        Path file = folder.resolve(name);
        Files.writeString(file, text);
        return file;
    }

    private static CommandRun run(String... args) {
        return CommandRun.of(Main.newCommandLine(), args);
    }

    @Test
    void aFitRecoversTheCoefficientsOfATableGeneratedFromAKnownProfile() throws IOException {
        for (String form : List.of(RooflineCompute.MAX, RooflineCompute.SUM)) {
            Path csv = write("steps-" + form + ".csv", table(known(form), 1));
            Path profile = folder.resolve("fitted-" + form + ".yaml");
            CommandRun fit = run("compute", "fit", csv.toString(), "--model", "qwen3-8b", "--gpu", "h200", "--form", form,
                    "--out", profile.toString());
            assertEquals(0, fit.exitCode(), fit.err());
            assertEquals("", fit.err(), "a clean fit warns of nothing");
            assertTrue(fit.out().contains("error: median "), fit.out());
            RooflineSection fitted = assertInstanceOf(RooflineSection.class, ComputeProfiles.load(profile));
            String text = Files.readString(profile);
            assertTrue(text.contains("\nkind: roofline\n") && text.contains("model:\n  preset: qwen3-8b\n")
                    && !text.contains("null"), text);
            assertEquals(0.55, fitted.computeEfficiency(), 1e-4, form);
            assertEquals(0.8, fitted.memoryEfficiency(), 1e-4, form);
            assertEquals(1_500_000, fitted.stepOverheadNs(), 100, form);
            assertEquals(20_000, fitted.sequenceNs(), 20, form);
            assertEquals(GpuSpecs.H200, fitted.gpu());
            assertEquals(form, fitted.form());
            assertTrue(fitted.fit().converged());
            assertTrue(fitted.fit().warnings().isEmpty(), fitted.fit().warnings().toString());
            assertTrue(fitted.fit().p90ErrorPercent() < 0.01, "p90 " + fitted.fit().p90ErrorPercent());
            assertEquals(27, fitted.fit().points());
        }
    }

    @Test
    void predictReproducesTheTableFromTheFittedProfileAndPricesAnotherModel() throws IOException {
        String measured = table(known(RooflineCompute.MAX), 1);
        Path csv = write("steps.csv", measured);
        Path profile = folder.resolve("fitted.yaml");
        assertEquals(0, run("compute", "fit", csv.toString(), "--model", "qwen3-8b", "--gpu", "h200", "--out",
                profile.toString()).exitCode());
        CommandRun predict = run("compute", "predict", "--profile", profile.toString(), "--shapes", csv.toString());
        assertEquals(0, predict.exitCode(), predict.err());
        List<String> expected = measured.lines().toList();
        List<String> got = predict.out().lines().toList();
        assertEquals(expected.size(), got.size());
        assertEquals(expected.getFirst(), got.getFirst());
        for (int i = 1; i < expected.size(); i++) {
            double want = Double.parseDouble(expected.get(i).substring(expected.get(i).lastIndexOf(',') + 1));
            double have = Double.parseDouble(got.get(i).substring(got.get(i).lastIndexOf(',') + 1));
            assertEquals(want, have, want * 1e-4, got.get(i));
            assertEquals(expected.get(i).substring(0, expected.get(i).lastIndexOf(',')),
                    got.get(i).substring(0, got.get(i).lastIndexOf(',')));
        }
        // Another model with the fitted efficiencies: exactly the roofline of Qwen3-32B at those values.
        RooflineSection fitted = (RooflineSection) ComputeProfiles.load(profile);
        RooflineCompute qwen32 = new RooflineCompute(GpuSpecs.H200, ModelShape.QWEN3_32B, RooflineCompute.MAX,
                fitted.computeEfficiency(), fitted.memoryEfficiency(), fitted.stepOverheadNs(), fitted.sequenceNs());
        Path shapes = write("shapes.csv", "kind,batch,new_tokens,context_tokens,ms\ndecode,8,1,4096,not-a-time\n");
        CommandRun other = run("compute", "predict", "--profile", profile.toString(), "--model", "qwen3-32b",
                "--shapes", shapes.toString());
        assertEquals(0, other.exitCode(), other.err());
        assertEquals("kind,batch,new_tokens,context_tokens,ms\ndecode,8,1,4096,"
                + String.format(Locale.ROOT, "%.6f", qwen32.stepNs(qwen32.cost(8, 1, 4096)) / 1e6) + "\n", other.out());
    }

    @Test
    void aTableFasterThanThePeakAllowsClampsAndSaysSo() throws IOException {
        Path csv = write("fast.csv", table(known(RooflineCompute.MAX), 0.3));
        Path profile = folder.resolve("clamped.yaml");
        CommandRun fit = run("compute", "fit", csv.toString(), "--model", "qwen3-8b", "--gpu", "h200", "--out",
                profile.toString());
        assertEquals(0, fit.exitCode(), fit.err());
        assertTrue(fit.err().contains("tierlab: warning: computeEfficiency clamped at 1"), fit.err());
        RooflineSection fitted = (RooflineSection) ComputeProfiles.load(profile);
        assertEquals(1.0, fitted.computeEfficiency());
        assertTrue(fitted.fit().warnings().stream().anyMatch(w -> w.startsWith("computeEfficiency clamped at 1")),
                fitted.fit().warnings().toString());
        assertTrue(Files.readString(profile).contains("computeEfficiency clamped at 1"));
    }

    @Test
    void aDecodeOnlyTableLeavesComputeUndetermined() throws IOException {
        StringBuilder csv = new StringBuilder("kind,batch,new_tokens,context_tokens,ms\n");
        RooflineCompute compute = known(RooflineCompute.MAX);
        for (int batch : new int[] {1, 4, 16}) {
            for (long context : new long[] {1024, 8192}) {
                csv.append(row("decode", compute, batch, 1, context, 1));
            }
        }
        Path profile = folder.resolve("decode.yaml");
        CommandRun fit = run("compute", "fit", write("decode.csv", csv.toString()).toString(), "--model", "qwen3-8b",
                "--gpu", "h200", "--out", profile.toString());
        assertEquals(0, fit.exitCode(), fit.err());
        assertTrue(fit.err().contains("computeEfficiency is undetermined"), fit.err());
        assertEquals(0.8, ((RooflineSection) ComputeProfiles.load(profile)).memoryEfficiency(), 1e-4);
    }

    @Test
    void badInputIsOneLineAndWritesNothing() throws IOException {
        Path bad = write("bad.csv", "kind,batch,new_tokens,context_tokens,ms\nprefill,1,512,0,10\nprefill,2,zwei,0,10\n");
        Path profile = folder.resolve("never.yaml");
        CommandRun fit = run("compute", "fit", bad.toString(), "--model", "qwen3-8b", "--out", profile.toString());
        assertEquals(1, fit.exitCode());
        assertEquals("tierlab: " + bad + ": line 3, column new_tokens: not a whole number: 'zwei'\n", fit.err());
        assertFalse(Files.exists(profile));
        CommandRun model = run("compute", "fit", bad.toString(), "--model", "gpt-9", "--out", profile.toString());
        assertEquals(1, model.exitCode());
        assertTrue(model.err().startsWith("tierlab: --model: model.preset: unknown model 'gpt-9' (known: qwen3-8b"), model.err());
        CommandRun gpu = run("compute", "fit", bad.toString(), "--model", "qwen3-8b", "--gpu", "b300", "--out", profile.toString());
        assertEquals("tierlab: --gpu: unknown gpu 'b300' (known: h100, h200)\n", gpu.err());
        Path existing = write("existing.yaml", "mine\n");
        Path good = write("good.csv", table(known(RooflineCompute.MAX), 1));
        CommandRun refused = run("compute", "fit", good.toString(), "--model", "qwen3-8b", "--out", existing.toString());
        assertEquals(1, refused.exitCode());
        assertTrue(refused.err().contains("exists (compute fit does not overwrite a file"), refused.err());
        assertEquals("mine\n", Files.readString(existing));
        CommandRun tooFew = run("compute", "fit", write("few.csv", "kind,batch,new_tokens,context_tokens,ms\n"
                + "decode,1,1,10,3\n").toString(), "--model", "qwen3-8b", "--out", profile.toString());
        assertTrue(tooFew.err().contains("needs at least 4 steps, the table has 1"), tooFew.err());
    }

    @Test
    void predictFromATableAndItsRefusals() throws IOException {
        Path table = write("table.csv", """
                kind,batch,new_tokens,context_tokens,ms
                prefill,1,512,0,10
                prefill,1,1024,0,18
                decode,1,1,1000,5
                decode,1,1,3000,7
                """);
        Path shapes = write("ask.csv", "kind,batch,new_tokens,context_tokens\nprefill,1,768,0\ndecode,1,1,2000\n");
        CommandRun predict = run("compute", "predict", "--profile", table.toString(), "--shapes", shapes.toString());
        assertEquals(0, predict.exitCode(), predict.err());
        assertEquals("kind,batch,new_tokens,context_tokens,ms\nprefill,1,768,0,14.000000\ndecode,1,1,2000,6.000000\n",
                predict.out());
        CommandRun other = run("compute", "predict", "--profile", table.toString(), "--model", "qwen3-32b", "--shapes",
                shapes.toString());
        assertEquals(1, other.exitCode());
        assertTrue(other.err().contains("only a roofline or kernel-roofline profile prices another model"), other.err());
        List<String> lines = new ArrayList<>(predict.err().lines().toList());
        assertTrue(lines.isEmpty(), predict.err());
    }
}
