package tierlab.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.model.io.StepShape;

/** Interpolation over a measured step table, and the one-line messages of a bad table. */
final class StepTableTest {

    @TempDir
    Path folder;

    private Path write(String text) throws IOException {
        Path file = folder.resolve("steps.csv");
        Files.writeString(file, text);
        return file;
    }

    private static final String GRID = """
            kind,batch,new_tokens,context_tokens,ms
            prefill,1,512,0,10
            prefill,1,1024,0,18
            prefill,2,512,0,19
            prefill,2,1024,0,34
            decode,1,1,1000,5
            decode,1,1,3000,7
            decode,8,1,1000,6
            decode,8,1,3000,10
            """;

    private static StepShape decodes(int batch, long context) {
        StepShape.Sequence[] sequences = new StepShape.Sequence[batch];
        for (int i = 0; i < batch; i++) {
            sequences[i] = new StepShape.Sequence(i, 1, context, true);
        }
        return new StepShape(List.of(sequences));
    }

    @Test
    void gridPointsAreReturnedAndBetweenThemInterpolated() throws IOException {
        StepTable table = new StepTable("t", StepRows.read(write(GRID), true));
        assertEquals(5_000_000, table.stepNs(decodes(1, 1000)));
        assertEquals(10_000_000, table.stepNs(decodes(8, 3000)));
        // Context 2000 is halfway: batch 1 gives 6 ms, batch 8 gives 8 ms; batch 4 is 3/7 of the way: 6 + 2 × 3/7 ms.
        assertEquals(6_000_000, table.stepNs(decodes(1, 2000)));
        assertEquals(8_000_000, table.stepNs(decodes(8, 2000)));
        assertEquals(6_857_143, table.stepNs(decodes(4, 2000)));
        // The context is the batch's mean: 1500 and 2500 price as two sequences of 2000.
        assertEquals(table.stepNs(decodes(2, 2000)), table.stepNs(new StepShape(List.of(
                new StepShape.Sequence(1, 1, 1500, true), new StepShape.Sequence(2, 1, 2500, true)))));
        // A prefill of 768 new tokens, batch 1: between 10 and 18 ms, 14 ms.
        assertEquals(14_000_000, table.stepNs(new StepShape(List.of(new StepShape.Sequence(1, 768, 0, false)))));
    }

    @Test
    void beyondTheGridTheOutermostPointsExtrapolate() throws IOException {
        StepTable table = new StepTable("t", StepRows.read(write(GRID), true));
        // Context 5000, batch 1: 7 + (5000 − 3000) × (7 − 5) / 2000 = 9 ms.
        assertEquals(9_000_000, table.stepNs(decodes(1, 5000)));
        // A prefill of 2048 tokens, batch 1: 18 + 1024 × 8 / 512 = 34 ms.
        assertEquals(34_000_000, table.stepNs(new StepShape(List.of(new StepShape.Sequence(1, 2048, 0, false)))));
    }

    @Test
    void aMixedStepIsPricedAsPrefillAtItsMeans() throws IOException {
        StepTable table = new StepTable("t", StepRows.read(write(GRID), true));
        // Two sequences, 1023 and 1 new tokens (mean 512), no context: the batch-2, 512-token point, 19 ms.
        assertEquals(19_000_000, table.stepNs(new StepShape(List.of(new StepShape.Sequence(1, 1023, 0, false),
                new StepShape.Sequence(2, 1, 0, true)))));
    }

    @Test
    void aTableThatIsNotAFullGridNamesTheMissingPoint() throws IOException {
        Path file = write("kind,batch,new_tokens,context_tokens,ms\nprefill,1,512,0,10\nprefill,2,1024,0,34\ndecode,1,1,10,1\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new StepTable("steps.csv", StepRows.read(file, true)));
        assertEquals("steps.csv: the prefill rows are not a full grid: no row for batch 1, new_tokens 1024, context_tokens 0",
                e.getMessage());
    }

    @Test
    void badRowsNameTheLineAndTheColumn() throws IOException {
        assertBad("kind,batch,new_tokens,context_tokens,ms\nprefill,1,512,0,10\nprefill,x,512,0,10\n",
                ": line 3, column batch: not a whole number: 'x'");
        assertBad("kind,batch,new_tokens,context_tokens,ms\nverify,1,512,0,10\n",
                ": line 2, column kind: must be prefill or decode, was 'verify'");
        assertBad("kind,batch,new_tokens,context_tokens,ms\ndecode,1,4,0,10\n",
                ": line 2, column new_tokens: a decode step has 1 new token per sequence, was 4");
        assertBad("kind,batch,new_tokens,context_tokens,ms\nprefill,1,512,0,-3\n",
                ": line 2, column ms: must be a finite time > 0, was -3");
        assertBad("kind,batch,new_tokens,context_tokens,ms\nprefill,1,512,0\n", ": line 2: 4 columns, the header has 5");
        assertBad("kind,batch,new_tokens,ms\nprefill,1,512,3\n", ": line 1: missing column 'context_tokens' (the header is kind,batch,new_tokens,context_tokens,ms)");
    }

    @Test
    void theMsColumnIsOptionalForShapesToPredict() throws IOException {
        List<StepRows.Row> rows = StepRows.read(write("kind,batch,new_tokens,context_tokens\ndecode,4,1,100\n"), false);
        assertEquals(new StepRows.Row("decode", 4, 1, 100, Double.NaN), rows.getFirst());
    }

    private void assertBad(String text, String expectedTail) throws IOException {
        Path file = write(text);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StepRows.read(file, true));
        assertEquals(file + expectedTail, e.getMessage());
    }
}
