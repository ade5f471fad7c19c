package tierlab.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicOutputDirectoryTest {

    private static final Set<String> OWNED = Set.of("a.txt", "b.txt");

    @TempDir
    Path folder;

    @Test
    void aFailedFirstWriteLeavesNothingBehindNotEvenTheParents() {
        Path target = folder.resolve("x/y/out");

        CommandException error = assertThrows(CommandException.class, () -> AtomicOutputDirectory.write(target, OWNED, dir -> {
            Files.writeString(dir.resolve("a.txt"), "half");
            throw new IOException("disk full");
        }));

        assertTrue(error.getMessage().contains("disk full"), error.getMessage());
        assertEquals(List.of(), list(folder));
    }

    @Test
    void aFailedRewriteKeepsThePreviousOutputs() throws IOException {
        Path target = folder.resolve("out");
        AtomicOutputDirectory.write(target, OWNED, dir -> Files.writeString(dir.resolve("a.txt"), "first"));

        // Not a file problem: a bug in the job, which comes out as it was thrown, stack trace and all.
        IllegalStateException bug = assertThrows(IllegalStateException.class, () -> AtomicOutputDirectory.write(target, OWNED, dir -> {
            Files.writeString(dir.resolve("a.txt"), "second");
            throw new IllegalStateException("chart failed");
        }));
        assertEquals("chart failed", bug.getMessage());

        assertEquals("first", Files.readString(target.resolve("a.txt")));
        assertEquals(List.of(target), list(folder), "no temporary folder is left");
    }

    @Test
    void aRewriteReplacesTheFolderWhole() throws IOException {
        Path target = folder.resolve("out");
        AtomicOutputDirectory.write(target, OWNED, dir -> {
            Files.writeString(dir.resolve("a.txt"), "first");
            Files.writeString(dir.resolve("b.txt"), "first");
        });

        AtomicOutputDirectory.write(target, OWNED, dir -> Files.writeString(dir.resolve("a.txt"), "second"));

        assertEquals("second", Files.readString(target.resolve("a.txt")));
        assertFalse(Files.exists(target.resolve("b.txt")), "a file of the previous run does not linger");
        assertEquals(List.of(target), list(folder));
    }

    @Test
    void aFolderWithOtherFilesOrAFileIsNotReplaced() throws IOException {
        Path target = Files.createDirectories(folder.resolve("out"));
        Files.writeString(target.resolve("keep.me"), "x");
        Path plainFile = Files.writeString(folder.resolve("file"), "x");

        assertThrows(CommandException.class, () -> AtomicOutputDirectory.write(target, OWNED, dir -> { }));
        assertThrows(CommandException.class, () -> AtomicOutputDirectory.write(plainFile, OWNED, dir -> { }));

        assertEquals("x", Files.readString(target.resolve("keep.me")));
        assertEquals("x", Files.readString(plainFile));
    }

    private static List<Path> list(Path folder) {
        try (Stream<Path> entries = Files.list(folder)) {
            return entries.sorted().toList();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
