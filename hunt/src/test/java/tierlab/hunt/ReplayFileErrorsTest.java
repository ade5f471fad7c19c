package tierlab.hunt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A bad replay file is one line naming file, line and cause, without Jackson's own text. */
class ReplayFileErrorsTest {

    @TempDir
    Path folder;

    private String problem(String name, byte[] content) throws IOException {
        Path file = Files.write(folder.resolve(name), content);
        String message = assertThrows(IllegalArgumentException.class, () -> ReplayFile.read(file)).getMessage();
        System.out.println(message);
        assertTrue(message.startsWith(file.toString()), message);
        assertFalse(message.contains("\n"), message);
        for (String jackson : new String[] {"Source:", "Exception", "`", "com.fasterxml", "tierlab.hunt", "JSON String, Number"}) {
            assertFalse(message.contains(jackson), "Jackson's text in: " + message);
        }
        return message.substring(file.toString().length());
    }

    @Test
    void badFilesAreOneLineInWords() throws IOException {
        assertEquals(":1:23: field 'seed': 'abc' is not a whole number",
                problem("type.json", "{\"format\": 1, \"seed\": \"abc\"}".getBytes(StandardCharsets.UTF_8)));
        assertTrue(problem("unknown.json", "{\"format\": 1, \"sede\": 3}".getBytes(StandardCharsets.UTF_8))
                .startsWith(":1:25: unknown field 'sede' (known: check, format,"));
        assertEquals(":2:11: the file ends inside a JSON value (cut short?)",
                problem("cut.json", "{\"format\": 1,\n \"seed\": 3".getBytes(StandardCharsets.UTF_8)));
        assertEquals(":1:15: not valid JSON", problem("syntax.json", "{\"format\": 1, x}".getBytes(StandardCharsets.UTF_8)));
        assertEquals(": binary data, not UTF-8 text, at line 2 (byte 0xff at column 3); a replay file is JSON text",
                problem("binary.json", new byte[] {'{', '\n', ' ', ' ', (byte) 0xff, '}'}));
        java.io.ByteArrayOutputStream gzip = new java.io.ByteArrayOutputStream();
        try (OutputStream out = new GZIPOutputStream(gzip)) {
            out.write("{\"format\": 1}".getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(": gzip-compressed data, not text (decompress it first); a replay file is JSON text",
                problem("gz.json", gzip.toByteArray()));
    }
}
