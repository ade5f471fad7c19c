package tierlab.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.Table;

/**
 * A disk that fills while the tables are written: the line names the file and says "no space left on
 * device", and the output folder is as it was (absent, or the previous outputs). {@code /dev/full} stands
 * for the full disk: every write to it fails with ENOSPC, after the CSV library has buffered some rows.
 */
class FullDiskOutputTest {

    private static final Path FULL = Path.of("/dev/full");
    private static final Set<String> OWNED = Set.of("results.csv", "report.md");

    @TempDir
    Path folder;

    @BeforeEach
    void needsDevFull() {
        assumeTrue(Files.exists(FULL), "no /dev/full on this host");
    }

    /** Enough rows that the CSV writer flushes before its end, as a real table does. */
    private static Table rows() {
        return Table.create("t", IntColumn.create("run", IntStream.range(0, 200_000).toArray()));
    }

    @Test
    void aCsvWriteToAFullDiskNamesTheFileAndTheCause() {
        FileSystemException failure = assertThrows(FileSystemException.class, () -> CsvFiles.write(rows(), FULL));
        assertEquals(FULL.toString(), failure.getFile());
        assertEquals("/dev/full: no space left on device (ENOSPC)", CommandException.describe(failure));
    }

    @Test
    void aFullDiskDuringTheOutputsLeavesNoFolderAndSaysSo() {
        Path target = folder.resolve("out");
        CommandException failure = assertThrows(CommandException.class, () -> AtomicOutputDirectory.write(target, OWNED,
                dir -> CsvFiles.write(rows(), Files.createSymbolicLink(dir.resolve("results.csv"), FULL))));
        assertEquals("cannot write " + target.resolve("results.csv") + ": no space left on device (ENOSPC); nothing was"
                + " written to " + target, failure.getMessage());
        assertEquals(List.of(), list(folder), "no temporary folder, no half-written output");
    }

    @Test
    void aFullDiskDuringARewriteKeepsThePreviousOutputs() throws IOException {
        Path target = folder.resolve("out");
        AtomicOutputDirectory.write(target, OWNED, dir -> Files.writeString(dir.resolve("results.csv"), "run\n1\n"));
        CommandException failure = assertThrows(CommandException.class, () -> AtomicOutputDirectory.write(target, OWNED, dir -> {
            Files.writeString(dir.resolve("report.md"), "new report");
            CsvFiles.write(rows(), Files.createSymbolicLink(dir.resolve("results.csv"), FULL));
        }));
        assertEquals("cannot write " + target.resolve("results.csv") + ": no space left on device (ENOSPC); " + target
                + " is left as it was", failure.getMessage());
        assertEquals("run\n1\n", Files.readString(target.resolve("results.csv")));
        assertFalse(Files.exists(target.resolve("report.md")), "nothing of the failed write is presented as output");
        assertEquals(List.of(target), list(folder));
    }

    private static List<Path> list(Path directory) {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.sorted().toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
