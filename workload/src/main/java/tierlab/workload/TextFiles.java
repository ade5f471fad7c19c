package tierlab.workload;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Text files as their writer meant them: a UTF-8 byte-order mark at the start (Windows editors and
 * spreadsheet exports write one) is not part of the first line, so it is dropped wherever tierlab reads
 * a text file (experiment files, traces, the tables of an output folder), instead of becoming an
 * invisible character inside the first field or a message.
 */
public final class TextFiles {

    /** U+FEFF, the byte-order mark, as a decoded character. */
    public static final char BYTE_ORDER_MARK = '\uFEFF';
    private static final byte[] UTF8_BYTE_ORDER_MARK = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

    private TextFiles() {
    }

    /** A UTF-8 reader of {@code file} that skips a byte-order mark at its start. */
    public static BufferedReader newReader(Path file) throws IOException {
        BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8);
        try {
            reader.mark(1);
            if (reader.read() != BYTE_ORDER_MARK) {
                reader.reset();
            }
            return reader;
        } catch (IOException | RuntimeException e) {
            reader.close();
            throw e;
        }
    }

    /** The file's UTF-8 text without a leading byte-order mark. */
    public static String readString(Path file) throws IOException {
        return withoutByteOrderMark(Files.readString(file, StandardCharsets.UTF_8));
    }

    public static String withoutByteOrderMark(String text) {
        return text != null && !text.isEmpty() && text.charAt(0) == BYTE_ORDER_MARK ? text.substring(1) : text;
    }

    public static byte[] withoutByteOrderMark(byte[] bytes) {
        return bytes.length >= 3 && bytes[0] == UTF8_BYTE_ORDER_MARK[0] && bytes[1] == UTF8_BYTE_ORDER_MARK[1]
                && bytes[2] == UTF8_BYTE_ORDER_MARK[2] ? Arrays.copyOfRange(bytes, 3, bytes.length) : bytes;
    }
}
