package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.experiments.OutputLock;

/**
 * Two {@code tierlab run} processes into one {@code --out} on a real file system: the second is refused
 * in one line naming the folder and the first one's process id, and writes nothing; the first finishes
 * as if alone, and its folder holds its files only. A lock file left by a killed run takes nothing.
 */
class ConcurrentOutputTest {

    @TempDir
    Path folder;

    @Test
    void aLockFileLeftByAKilledRunBlocksNothing() throws Exception {
        Path out = folder.resolve("out");
        Files.writeString(OutputLock.lockFileOf(out), "999999999\n"); // what SIGKILL leaves: the file, no lock
        try (OutputLock held = OutputLock.acquire(out)) {
            assertEquals(Long.toString(ProcessHandle.current().pid()), Files.readString(OutputLock.lockFileOf(out)).strip());
        }
        assertFalse(Files.exists(OutputLock.lockFileOf(out)));
        assertEquals(List.of(), listing(folder));
    }

    private static List<String> listing(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".log") || n.startsWith("first")
                    || n.startsWith("second")).sorted().toList();
        }
    }
}
