package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tierlab.hunt.testkit.CommandRun;
import tierlab.model.geometry.Geometry;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.store.StoreSettings;

/**
 * Sizes nobody checked used to cost minutes. {@code l2CapacityGiB: 1000000} took 23 s and ended in a
 * NegativeArraySizeException, {@code 1e7} in an OutOfMemoryError trace, {@code gpuKvBlocks} = Long.MAX
 * in 63 s, 6.4 GB and an OutOfMemoryError, and a 50 MB YAML of one long string held the reader for
 * more than 120 s. Each is now one line naming the field and the limit, before anything is allocated.
 */
class SizeLimitsTest {

    @TempDir
    Path folder;

    private CommandRun runFile(String text) throws IOException {
        Path file = folder.resolve("sized.yaml");
        Files.writeString(file, text);
        return RunCommandTest.run("run", file.toString(), "--out", folder.resolve("out").toString(), "-q");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            l2CapacityGiB 1e6        | store: {l2CapacityGiB: 1000000}                       | store.l2CapacityGiB: 1000000 GiB is 455,111,111 L2 slots
            l2CapacityGiB 1e7        | store: {l2CapacityGiB: 1e7}                           | store.l2CapacityGiB: 10000000 GiB is 4,551,111,111 L2 slots
            l2CapacityGiB 1e300      | store: {l2CapacityGiB: 1e300}                         | store.l2CapacityGiB: 1.0E300 GiB is more than 8 EiB
            gpuKvBlocks Long.MAX     | scheduler: {gpuKvBlocks: 9223372036854775807}         | scheduler.gpuKvBlocks: 9,223,372,036,854,775,807 GPU blocks need more than 8 EiB of heap
            """)
    void aSizeThisMachineCannotHoldIsOneLineNamingTheFieldAndTheLimit(String name, String section, String expected) throws IOException {
        String err = refusedInOneLine(name, "name: sized\nworkload: {type: long-prefill, prompts: 4, promptTokens: 500}\n" + section + "\n");
        assertTrue(err.contains(expected), err);
        assertTrue(err.contains("at most") || err.contains("more than 8 EiB"), "the limit is named: " + err);
        assertFalse(err.contains("Exception"), err);
        assertFalse(Files.exists(folder.resolve("out")));
    }

    /** Siblings found on the way: generated workloads were drawn until the heap ran out. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            two billion prompts      | workload: {type: long-prefill, prompts: 2000000000, promptTokens: 500}                   | workload.prompts: 2,000,000,000 prompts × 2 passes of up to 500 tokens need
            a billion-token prompt   | workload: {type: long-prefill, prompts: 4, promptTokens: 1000000000}                     | workload.promptTokens: one prompt of 1,000,000,000 tokens needs
            two billion synthetic    | workload: {type: synthetic, synthetic: {requestCount: 2000000000, arrivals: {kind: poisson, ratePerSecond: 10}, promptTokens: {kind: fixed, tokens: 100}, outputTokens: {kind: fixed, tokens: 1}}} | workload.synthetic.requestCount: 2,000,000,000 requests of up to 100 tokens need
            """)
    void aWorkloadThisMachineCannotHoldIsOneLineNamingTheField(String name, String workload, String expected) throws IOException {
        String err = refusedInOneLine(name, "name: sized\n" + workload + "\n");
        assertTrue(err.contains(expected) && err.contains("this JVM may use"), err);
    }

    /** Runs {@code text} as an experiment file that must be refused at once: exit 1, one line on stderr, within 5 s; returns the line. */
    private String refusedInOneLine(String name, String text) throws IOException {
        long start = System.nanoTime();
        CommandRun run = runFile(text);
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(1, run.exitCode(), run.out());
        String err = run.err().strip();
        assertEquals(1, err.lines().count(), err);
        assertTrue(tookMs < 5_000, name + " refused in " + tookMs + " ms");
        System.out.printf("%s refused in %d ms: %s%n", name, tookMs, err);
        return err;
    }

    @Test
    void aFiftyMegabyteExperimentFileIsRefusedByItsSize() throws IOException {
        long start = System.nanoTime();
        CommandRun run = runFile("name: long\ndescription: \"" + "x".repeat(50_000_000) + "\"\n");
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(1, run.exitCode());
        assertTrue(run.err().strip().endsWith("the experiment file is 50,000,027 bytes; an experiment file is at most"
                + " 1,048,576 bytes (1 MiB)"), run.err());
        assertTrue(tookMs < 2_000, "refused in " + tookMs + " ms");
        System.out.printf("50 MB experiment file refused in %d ms%n", tookMs);
    }

    @Test
    void theLimitsFollowTheHeapBudget() {
        Geometry geometry = Geometry.qwen3_8b();
        SchedulerSettings scheduler = SchedulerSettings.defaults(24_000);
        long budget = 1L << 30;
        // 1 GiB of budget at 160 B per unit: 6,710,886 units of 2.25 MiB, 14,745 GiB of L2.
        StoreSettings fits = StoreSettings.defaults(geometry, 64L << 30, 14_000L << 30);
        SizeLimits.check(fits, 14_000, scheduler, budget);
        StoreSettings tooBig = StoreSettings.defaults(geometry, 64L << 30, 15_000L << 30);
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> SizeLimits.check(tooBig, 15_000, scheduler, budget));
        assertTrue(refused.getMessage().contains("at most 14,745 GiB of L2 here"), refused.getMessage());
        IllegalArgumentException gpu = assertThrows(IllegalArgumentException.class,
                () -> SizeLimits.check(fits, 14_000, SchedulerSettings.defaults(40_000_000), budget));
        assertTrue(gpu.getMessage().startsWith("scheduler.gpuKvBlocks: 40,000,000 GPU blocks") && gpu.getMessage()
                .endsWith("at most 33,554,432 here"), gpu.getMessage());
    }
}
