package tierlab.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * I11 in hybrid mode (extends {@code DeterminismProperties}, which covers sim mode): the same seed
 * gives the same decision trace, bit for bit, although every read and write also goes through a
 * real storage port on a real file, with completions delivered in a seeded adversarial order.
 */
class HybridDeterminismProperties {
    @TempDir
    Path dir;

    @Test
    void theSameSeedGivesTheSameTraceInHybridMode() {
        qt().withFixedSeed(HuntSupport.SEED).withExamples(4)
                .forAll(longs().between(1, 1_000_000))
                .checkAssert(seed -> {
                    try {
                        HybridRuns.Outcome first = HybridRuns.run(seed, true, false, 5_000_000, dir);
                        HybridRuns.Outcome second = HybridRuns.run(seed, true, false, 5_000_000, dir);
                        assertEquals(first.traceHash(), second.traceHash(), "I11: seed " + seed + " on " + first.port());
                        assertEquals(24, first.finished());
                        assertEquals(0, first.realMismatches(), "no wrong byte on " + first.port());
                        assertEquals(0, first.storageFailures(), first.port());
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                });
    }

    @Test
    void theSameSeedGivesTheSameTraceInSimMode() {
        qt().withFixedSeed(HuntSupport.SEED).withExamples(20)
                .forAll(longs().between(1, 1_000_000))
                .checkAssert(seed -> {
                    try {
                        assertEquals(HybridRuns.run(seed, false, false, 5_000_000, dir).traceHash(),
                                HybridRuns.run(seed, false, false, 5_000_000, dir).traceHash(), "I11: seed " + seed);
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                });
    }
}
