package tierlab.experiments.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SequenceTest {

    private static List<List<String>> split(String... args) {
        return Sequence.split(args).stream().map(Arrays::asList).toList();
    }

    @Test
    void commandLinesAreSplitAtLoneSemicolons() {
        assertEquals(List.of(List.of("run", "a.yaml", "--quiet"), List.of("replay", "--out", "x")),
                split("run", "a.yaml", "--quiet", ";", "replay", "--out", "x"));
        assertEquals(List.of(List.of("replay")), split("replay"));
    }

    @Test
    void emptyCommandLinesAreSkippedAndASemicolonInsideAnArgumentIsKept() {
        assertEquals(List.of(List.of("a"), List.of("b;c")), split(";", "a", ";", ";", "b;c", ";"));
        assertEquals(List.of(), split());
    }

    @Test
    void theFirstFailingCommandStopsTheSequenceWithItsExitCode() {
        // 'replay --capacities 0' is a bad command line (exit 2), so the 'replay --help' after it never runs.
        assertEquals(2, Sequence.run(new String[] {"replay", "--help", ";", "replay", "--capacities", "0", ";", "nonsense"}));
        assertEquals(0, Sequence.run(new String[] {"replay", "--help", ";", "run", "--help"}));
    }
}
