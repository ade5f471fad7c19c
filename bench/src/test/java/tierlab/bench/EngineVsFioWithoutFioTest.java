package tierlab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import tierlab.engine.IoUringBackend;
import tierlab.engine.persist.CallerPaths;
import tierlab.model.testkit.TestDirectories;

/**
 * {@code bench engine} on a host without fio (the GPU host, a bare folder unpacked from the
 * archive): the engine side runs alone, one line says fio was not found and what is skipped, and
 * every table is still written, with the fio columns empty rather than made up, in the folder the
 * command was called from.
 */
class EngineVsFioWithoutFioTest {

    @Test
    void theEngineRunsAloneAndTheTablesAreWritten() throws Exception {
        Assumptions.assumeTrue(IoUringBackend.probe().available(), () -> "io_uring unavailable: " + IoUringBackend.probe().cause());
        Path dir = TestDirectories.underTarget("bench-no-fio");
        List<BenchCase> cases = List.of(BenchCase.acceptanceCases().get(1), BenchCase.acceptanceCases().get(7));
        EngineVsFioOptions options = new EngineVsFioOptions(2, 1, EngineVsFioOptions.MIN_SIZE_MIB, dir, 1, cases, false);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        // Called from dir, as the archive's launcher passes the caller's folder: the tables go there.
        Path tables = dir.resolve(EngineVsFio.OUTPUT_DIR);
        String before = System.getProperty(CallerPaths.CALLER_DIR_PROPERTY);
        System.setProperty(CallerPaths.CALLER_DIR_PROPERTY, dir.toAbsolutePath().toString());
        int status;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            status = new EngineVsFio(options, out, new Fio("tierlab-test-no-such-fio")).run();
        } finally {
            if (before == null) {
                System.clearProperty(CallerPaths.CALLER_DIR_PROPERTY);
            } else {
                System.setProperty(CallerPaths.CALLER_DIR_PROPERTY, before);
            }
        }
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, printed);
        List<String> notFound = printed.lines().filter(l -> l.contains("fio not found")).toList();
        assertEquals(1, notFound.size(), printed);
        assertTrue(notFound.getFirst().contains("tierlab-test-no-such-fio") && notFound.getFirst().contains("running the engine side alone")
                && notFound.getFirst().contains("skipped: the fio runs, the engine/fio ratios"), notFound.getFirst());
        assertFalse(printed.contains("fio job:"), printed);
        Path testFile = dir.resolve(EngineVsFio.TEST_FILE_NAME).toAbsolutePath();
        assertTrue(Files.exists(testFile), "kept for the next run");
        assertTrue(printed.contains("test file: left " + testFile + " (" + EngineVsFioOptions.MIN_SIZE_MIB + " MiB) and its stamp "
                + testFile.getFileName() + ".filled for the next run to reuse; delete both to free the space"), printed);

        List<String> summary = Files.readAllLines(tables.resolve("engine-vs-fio.csv"));
        assertEquals(3, summary.size(), summary.toString());
        for (String row : summary.subList(1, 3)) {
            String[] cells = row.split(",", -1);
            assertTrue(Double.parseDouble(cells[5]) > 0, "the engine was measured: " + row);
            assertEquals("", cells[6], "no fio figure: " + row);
            assertEquals("", cells[7], "no ratio: " + row);
        }
        List<String> rounds = Files.readAllLines(tables.resolve("engine-vs-fio-rounds.csv"));
        assertEquals(1 + 2 * 2, rounds.size(), rounds.toString());
        String markdown = Files.readString(tables.resolve("engine-vs-fio.md"));
        assertTrue(markdown.contains("without fio") && markdown.contains("| – | – | – |"), markdown);
        assertFalse(markdown.contains("Target (engine within 5% of fio)"), markdown);
        assertTrue(Files.size(tables.resolve("engine-vs-fio-batching.csv")) > 0);
    }
}
