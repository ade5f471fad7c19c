package tierlab.workload;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * Tells text input from binary input, so that a compressed or binary file given where a text file
 * belongs (a trace, an experiment file) is reported as what it is, at the line where the text
 * stops, rather than as a parser's complaint about a strange character or a decoder's exception
 * (a buffered reader decodes ahead, so its failure is not even at the right line).
 */
public final class BinaryContent {

    private BinaryContent() {
    }

    /**
     * Null when {@code bytes} are UTF-8 text without NUL bytes; otherwise what they are, to follow
     * "FILE: ": "gzip-compressed data, not text (decompress it first)" or "binary data, not UTF-8
     * text, at line 3 (byte 0x9f at column 12)".
     */
    public static String describe(byte[] bytes) {
        try {
            return describe(new java.io.ByteArrayInputStream(bytes));
        } catch (IOException e) {
            throw new IllegalStateException("reading a byte array cannot fail", e);
        }
    }

    /** What the first bytes of a file say about it: a compression format's magic number, or null. */
    public static String describeStart(byte[] head) {
        String compressed = compression(head);
        return compressed == null ? null : compressed + " data, not text (decompress it first)";
    }

    /** {@link #describe(byte[])} for a file, read once from the start, line by line. */
    public static String describe(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return describe(in);
        }
    }

    private static String describe(InputStream stream) throws IOException {
        InputStream in = new java.io.BufferedInputStream(stream, 1 << 16);
        in.mark(8);
        byte[] head = in.readNBytes(8);
        in.reset();
        String compressed = compression(head);
        if (compressed != null) {
            return compressed + " data, not text (decompress it first)";
        }
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        long lineNumber = 1;
        int value;
        while (true) {
            value = in.read();
            if (value == '\n' || value < 0) {
                String problem = check(decoder, line.toByteArray(), lineNumber);
                if (problem != null || value < 0) {
                    return problem;
                }
                line.reset();
                lineNumber++;
            } else {
                line.write(value);
            }
        }
    }

    /** The problem with one line (without its newline), or null when it is UTF-8 text without NUL. */
    private static String check(CharsetDecoder decoder, byte[] line, long lineNumber) {
        ByteBuffer in = ByteBuffer.wrap(line);
        CharBuffer out = CharBuffer.allocate(line.length + 1);
        decoder.reset();
        CoderResult result = decoder.decode(in, out, true);
        int end = result.isError() ? in.position() : line.length;
        // The first bad byte wins, whether a NUL (valid UTF-8, but no text holds it) or one that does not decode.
        for (int index = 0; index < end; index++) {
            if (line[index] == 0) {
                return where(lineNumber, index, line[index]);
            }
        }
        return result.isError() ? where(lineNumber, end, line[end]) : null;
    }

    private static String where(long lineNumber, int index, byte value) {
        return String.format(Locale.ROOT, "binary data, not UTF-8 text, at line %d (byte 0x%02x at column %d)",
                lineNumber, value & 0xff, index + 1);
    }

    /** The compression format whose magic number starts {@code head}, or null. */
    private static String compression(byte[] head) {
        if (startsWith(head, 0x1f, 0x8b)) {
            return "gzip-compressed";
        }
        if (startsWith(head, 0x28, 0xb5, 0x2f, 0xfd)) {
            return "zstd-compressed";
        }
        if (startsWith(head, 0xfd, '7', 'z', 'X', 'Z', 0)) {
            return "xz-compressed";
        }
        if (startsWith(head, 'B', 'Z', 'h')) {
            return "bzip2-compressed";
        }
        if (startsWith(head, 'P', 'K', 3, 4)) {
            return "zip-compressed";
        }
        return null;
    }

    private static boolean startsWith(byte[] head, int... magic) {
        if (head.length < magic.length) {
            return false;
        }
        byte[] expected = new byte[magic.length];
        for (int index = 0; index < magic.length; index++) {
            expected[index] = (byte) magic[index];
        }
        return Arrays.equals(head, 0, magic.length, expected, 0, magic.length);
    }
}
