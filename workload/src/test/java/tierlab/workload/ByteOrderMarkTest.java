package tierlab.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A trace saved with a UTF-8 byte-order mark (as Windows editors and spreadsheet exports do) reads as without one. */
class ByteOrderMarkTest {

    private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    private static final Path DATA = Path.of("../data");

    @TempDir
    Path folder;

    private Path withBom(String sample) throws IOException {
        byte[] original = Files.readAllBytes(DATA.resolve(sample));
        byte[] marked = new byte[BOM.length + original.length];
        System.arraycopy(BOM, 0, marked, 0, BOM.length);
        System.arraycopy(original, 0, marked, BOM.length, original.length);
        return Files.write(folder.resolve(sample), marked);
    }

    @Test
    void everyTextTraceFormatReadsTheSameWithAByteOrderMark() throws IOException {
        assertEquals(MooncakeTraceReader.read(DATA.resolve("mooncake_synthetic_trace.jsonl")).requests().size(),
                MooncakeTraceReader.read(withBom("mooncake_synthetic_trace.jsonl")).requests().size());
        for (String[] formatAndSample : new String[][] {{"qwen", "qwen_format_sample.jsonl"},
                {"azure", "azure_llm_inference_2023_code_first1000.csv"}, {"lcs-csv", "mooncake_first500.lcs.csv"}}) {
            TraceFormats.TraceFormat format = TraceFormats.FORMATS.get("format", formatAndSample[0]);
            RequestTrace plain = format.read(DATA.resolve(formatAndSample[1]));
            RequestTrace marked = format.read(withBom(formatAndSample[1]));
            assertEquals(plain.requests().size(), marked.requests().size(), formatAndSample[0]);
            assertEquals(plain.references(), marked.references(), formatAndSample[0]);
        }
    }

    @Test
    void onlyALeadingMarkIsDropped() {
        assertEquals("a\uFEFFb", TextFiles.withoutByteOrderMark("\uFEFFa\uFEFFb"));
        assertEquals("ab", TextFiles.withoutByteOrderMark("ab"));
        assertEquals("", TextFiles.withoutByteOrderMark("\uFEFF"));
    }
}
