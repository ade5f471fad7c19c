package tierlab.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A folder named as a trace is called a directory by every format's reader, not a missing file. */
class TraceFilesTest {

    @TempDir
    Path folder;

    @ParameterizedTest
    @ValueSource(strings = {"mooncake", "qwen", "azure", "oracle-general", "lcs-csv"})
    void aDirectoryIsCalledADirectoryByEveryFormat(String format) throws IOException {
        Path directory = Files.createDirectory(folder.resolve("trace.jsonl"));

        TraceException error = assertThrows(TraceException.class, () -> TraceFormats.FORMATS.get("format", format).read(directory));

        assertEquals("trace file " + directory + ": is a directory", error.getMessage());
        assertEquals(directory, error.file());
    }

    @ParameterizedTest
    @ValueSource(strings = {"mooncake", "qwen", "azure", "oracle-general", "lcs-csv"})
    void aMissingPathIsNoSuchFileByEveryFormat(String format) {
        Path missing = folder.resolve("absent.jsonl");

        TraceException error = assertThrows(TraceException.class, () -> TraceFormats.FORMATS.get("format", format).read(missing));

        assertEquals("trace file " + missing + ": no such file", error.getMessage());
    }

    @org.junit.jupiter.api.Test
    void theProblemOfEachKindOfPath() throws IOException {
        Path file = Files.writeString(folder.resolve("t.jsonl"), "{}\n");
        assertNull(TraceFiles.problem(file));
        assertEquals("is a directory", TraceFiles.problem(folder));
        assertEquals("no such file", TraceFiles.problem(folder.resolve("nope")));
        assertEquals("is a directory", TraceFiles.problem(Files.createSymbolicLink(folder.resolve("link"), folder)));
        assertEquals("is not a regular file", TraceFiles.problem(Path.of("/dev/null")));
    }
}
