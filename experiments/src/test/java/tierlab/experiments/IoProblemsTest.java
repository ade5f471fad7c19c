package tierlab.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import org.junit.jupiter.api.Test;

/** Causes in words, with the file, and no exception class names in what the user reads. */
class IoProblemsTest {

    @Test
    void errnoTextAndNamesBecomeWords() {
        assertEquals("no space left on device (ENOSPC)", IoProblems.describe(
                new IOException("fallocate(/out/.x.scratch/l2-run0-1.bin, 10737418 bytes) failed: ENOSPC (No space left on device)")));
        assertEquals("no space left on device (ENOSPC)",
                IoProblems.describe(new FileSystemException("/out/x", null, "No space left on device")));
        assertEquals("read-only file system (EROFS)",
                IoProblems.describe(new UncheckedIOException(new FileSystemException("/ro/x", null, "Read-only file system"))));
        assertEquals("no such file or folder", IoProblems.describe(new NoSuchFileException("/nope")));
    }

    @Test
    void theCommandLineNamesTheFileAndTheCauseWithoutClassNames() {
        assertEquals("/out/results.csv: no space left on device (ENOSPC)", CommandException.describe(
                new UncheckedIOException(new FileSystemException("/out/results.csv", null, "No space left on device"))));
        assertEquals("/t.jsonl:3: not valid JSON",
                CommandException.describe(new tierlab.workload.TraceFormatException(java.nio.file.Path.of("/t.jsonl"), 3, "not valid JSON")));
    }
}
