package tierlab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class EngineVsFioOptionsTest {

    private static EngineVsFioOptions run(String... args) {
        return assertInstanceOf(EngineVsFioOptions.Run.class, EngineVsFioOptions.parse(args), () -> "expected a run for " + List.of(args))
                .options();
    }

    private static String invalid(String... args) {
        return assertInstanceOf(EngineVsFioOptions.Invalid.class, EngineVsFioOptions.parse(args), () -> "expected a mistake for " + List.of(args))
                .message();
    }

    @Test
    void defaultsAreTheFullRun() {
        EngineVsFioOptions options = run();
        assertEquals(5, options.rounds());
        assertEquals(5, options.seconds());
        assertEquals(1024, options.sizeMib());
        assertEquals(1L << 30, options.sizeBytes());
        assertNull(options.dir());
        assertEquals(1, options.rings());
        assertEquals(BenchCase.acceptanceCases(), options.cases());
    }

    @Test
    void quickIsASmokeTestAndExplicitFlagsWin() {
        EngineVsFioOptions quick = run("--quick");
        assertEquals(1, quick.rounds());
        assertEquals(2, quick.seconds());
        assertEquals(256, quick.sizeMib());
        EngineVsFioOptions mixed = run("--quick", "--rounds", "3", "--size-mib=128");
        assertEquals(3, mixed.rounds());
        assertEquals(2, mixed.seconds());
        assertEquals(128, mixed.sizeMib());
    }

    @Test
    void everyFlagInBothForms() {
        EngineVsFioOptions options = run("--rounds", "7", "--seconds=3", "--size-mib", "512", "--dir", "/mnt/nvme/bench",
                "--rings=8", "--cases", "randread-128k-qd8, read-1m-qd8");
        assertEquals(7, options.rounds());
        assertEquals(3, options.seconds());
        assertEquals(512, options.sizeMib());
        assertEquals(Path.of("/mnt/nvme/bench"), options.dir());
        assertEquals(8, options.rings());
        assertEquals(List.of("randread-128k-qd8", "read-1m-qd8"), options.cases().stream().map(BenchCase::name).toList());
    }

    @Test
    void mistakesGetOneSentenceNamingTheFlag() {
        assertEquals("unknown flag '--round'; the flags are --rounds --seconds --size-mib --dir --rings --cases --quick --help",
                invalid("--round", "3"));
        assertEquals("unknown flag '-r'; the flags are --rounds --seconds --size-mib --dir --rings --cases --quick --help",
                invalid("-r", "3"));
        assertEquals("unexpected argument '5'; every setting is a flag (--rounds --seconds --size-mib --dir --rings --cases --quick --help)",
                invalid("5"));
        assertEquals("--rounds needs a value", invalid("--rounds"));
        assertEquals("--seconds needs a value", invalid("--seconds", "--quick"));
        assertEquals("--rounds must be a whole number between 1 and 100, was 'five'", invalid("--rounds", "five"));
        assertEquals("--rounds must be between 1 and 100, was 0", invalid("--rounds", "0"));
        assertEquals("--seconds must be between 1 and 600, was 601", invalid("--seconds=601"));
        assertEquals("--seconds must be a whole number between 1 and 600, was '2.5'", invalid("--seconds", "2.5"));
        assertEquals("--size-mib must be between 64 and 1048576, was 16", invalid("--size-mib", "16"));
        assertEquals("--rings must be between 1 and 64, was -1", invalid("--rings", "-1"));
        assertEquals("--dir needs a directory path, was empty", invalid("--dir="));
        assertEquals("--rounds is given twice", invalid("--rounds", "2", "--rounds=3"));
        assertEquals("--quick takes no value, was given 'yes'", invalid("--quick=yes"));
        String cases = invalid("--cases", "randread-4k-qd8");
        assertTrue(cases.startsWith("--cases: no case named 'randread-4k-qd8'; the cases are randread-128k-qd1,"), cases);
        assertEquals("--cases names read-1m-qd8 twice", invalid("--cases", "read-1m-qd8,read-1m-qd8"));
    }

    @Test
    void helpWinsAndListsEveryFlag() {
        assertInstanceOf(EngineVsFioOptions.Help.class, EngineVsFioOptions.parse("--rounds", "x", "--help"));
        assertInstanceOf(EngineVsFioOptions.Help.class, EngineVsFioOptions.parse("-h"));
        String usage = EngineVsFioOptions.usage();
        for (String flag : List.of("--rounds", "--seconds", "--size-mib", "--dir", "--rings", "--cases", "--quick", "--help")) {
            assertTrue(usage.contains(flag), flag);
        }
    }

    @Test
    void theHelpComesFromTheFlagsWithTheirRangesAndDefaults() {
        String usage = EngineVsFioOptions.usage();
        assertTrue(usage.startsWith("Usage: tierlab bench engine "), usage);
        assertTrue(usage.contains("engine/fio pairs per case (1..100; default 5)"), usage);
        assertTrue(usage.contains("test file size in MiB (64..1048576; default 1024)"), usage);
        assertTrue(usage.contains("smoke test: 1 round, 2 s runs, a 256 MiB file"), usage);
        assertTrue(usage.contains("randread-128k-qd1"), usage);
    }

    @Test
    void theMixinChecksValuesAfterPicocliReadTheFlags() {
        EngineVsFioFlags flags = new EngineVsFioFlags();
        new picocli.CommandLine(flags).parseArgs("--rings", "4", "--quick");
        EngineVsFioOptions options = flags.options();
        assertEquals(4, options.rings());
        assertEquals(EngineVsFioOptions.QUICK_ROUNDS, options.rounds());
        EngineVsFioFlags bad = new EngineVsFioFlags();
        new picocli.CommandLine(bad).parseArgs("--rings", "65");
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, bad::options);
        assertEquals("--rings must be between 1 and 64, was 65", e.getMessage());
    }
}
