package tierlab.engine.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static tierlab.engine.live.WarmRestartHarness.prompts;
import static tierlab.engine.live.WarmRestartHarness.run;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.engine.live.WarmRestartHarness.Outcome;
import tierlab.engine.persist.IndexFile;
import tierlab.engine.persist.L2Identity;
import tierlab.model.store.StoreCounter;

/**
 * A clean shutdown writes the index beside the L2 file; the next start keeps the L2 cache. An
 * index that does not provably describe the L2 file as it is now (another run's
 * index, an L2 file replaced or changed in place, a stale index after a crash) starts cold and
 * never serves wrong bytes.
 */
class WarmStartTest {
    static final int KEYS_PER_SET = WarmRestartHarness.PROMPTS * WarmRestartHarness.BLOCKS_PER_PROMPT;

    @TempDir
    Path dir;

    private static void assertCold(Outcome outcome, String... fragments) {
        assertFalse(outcome.opened().warm(), outcome.opened().message());
        String message = outcome.opened().message();
        assertFalse(message.contains("\n"), "one line: " + message);
        assertTrue(message.endsWith("starting with a cold L2"), message);
        for (String fragment : fragments) {
            assertTrue(message.contains(fragment), () -> "'" + fragment + "' in: " + message);
        }
        assertEquals(0, outcome.l2VisibleAtOpen(), "a cold start shows nothing in L2");
        assertEquals(0, outcome.report().mismatches(), outcome.report().mismatchExamples().toString());
        assertEquals(0, outcome.report().loadMatches(), "a cold store has nothing in L2 to load");
    }

    @Test
    void aWarmRestartServesTheFirstPassFromL2WithoutMismatch() throws Exception {
        Path l2 = dir.resolve("l2.bin");
        Outcome first = run(l2, prompts(0, 0), true);
        assertFalse(first.opened().warm(), first.opened().message());
        assertEquals(0, first.report().mismatches());
        assertTrue(Files.exists(IndexFile.besideL2(l2)));

        Outcome second = run(l2, prompts(0, 100), true);
        assertTrue(second.opened().warm(), second.opened().message());
        assertEquals(KEYS_PER_SET, second.l2VisibleAtOpen(), "the warm store shows the first process's units in L2");
        assertEquals(0, second.report().mismatches(), second.report().mismatchExamples().toString());
        assertEquals(KEYS_PER_SET, second.report().loadMatches(), "every block of the second process's prompts came from the first one's L2");
        assertTrue(second.report().l2ReadOps() > 0);
        assertEquals(0, second.opened().store().counter(StoreCounter.STORE_BLOCKS_CLAIMED), "nothing needed storing again");

        Outcome third = run(l2, prompts(0, 200), false);
        assertTrue(third.opened().warm(), "a clean shutdown after a warm start is again a valid index: " + third.opened().message());
        assertEquals(KEYS_PER_SET, third.report().loadMatches());
    }

    @Test
    void aTornIndexStartsColdWithAClearMessage() throws Exception {
        Path l2 = dir.resolve("l2.bin");
        run(l2, prompts(0, 0), true);
        Path index = IndexFile.besideL2(l2);
        byte[] bytes = Files.readAllBytes(index);
        Files.write(index, java.util.Arrays.copyOf(bytes, bytes.length / 2));
        assertCold(run(l2, prompts(0, 100), true), index.toString(), "torn");
    }

    @Test
    void anotherRunsIndexOfTheSameGeometryIsForeign() throws Exception {
        Path mine = dir.resolve("mine.bin");
        Path other = dir.resolve("other.bin");
        run(mine, prompts(1, 0), true);
        run(other, prompts(0, 0), true);
        Files.copy(IndexFile.besideL2(other), IndexFile.besideL2(mine), StandardCopyOption.REPLACE_EXISTING);
        // Before the fix: 80 of 80 loads returned set 1's bytes for set 0's keys.
        assertCold(run(mine, prompts(0, 100), true), "foreign", "another run's index");
    }

    @Test
    void anL2FileReplacedByZerosOfTheSameSizeIsNotTrusted() throws Exception {
        Path l2 = dir.resolve("l2.bin");
        run(l2, prompts(0, 0), true);
        long size = Files.size(l2);
        Files.delete(l2);
        try (FileChannel channel = FileChannel.open(l2, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(1), size - 1);
        }
        assertCold(run(l2, prompts(0, 100), true), "foreign", "no identity trailer");
    }

    @Test
    void anL2FileReplacedByAnotherL2FileIsForeign() throws Exception {
        Path l2 = dir.resolve("l2.bin");
        Path other = dir.resolve("other.bin");
        run(l2, prompts(0, 0), true);
        run(other, prompts(1, 0), true);
        Files.copy(other, l2, StandardCopyOption.REPLACE_EXISTING);
        assertCold(run(l2, prompts(0, 100), true), "foreign", "replaced L2 file");
    }

    @Test
    void aStaleIndexAfterACrashedWarmRunIsRefused() throws Exception {
        Path l2 = dir.resolve("l2.bin");
        run(l2, prompts(0, 0), true);
        Outcome crashed = run(l2, prompts(1, 100), false);
        assertTrue(crashed.opened().warm(), crashed.opened().message());
        assertTrue(crashed.report().l2WriteOps() > 0, "the crashed run rewrote part of the L2 file");
        // Before the fix: the stale index was accepted and 64 of 80 loads were wrong.
        assertCold(run(l2, prompts(0, 200), true), "stale", "crashed or was killed");
    }

    @Test
    void anIndexPutBackAfterALaterRunStartedIsStale() throws Exception {
        Path l2 = dir.resolve("l2.bin");
        run(l2, prompts(0, 0), true);
        byte[] saved = Files.readAllBytes(IndexFile.besideL2(l2));
        run(l2, prompts(1, 100), true);
        run(l2, prompts(2, 200), true);
        Files.write(IndexFile.besideL2(l2), saved);
        assertCold(run(l2, prompts(0, 300), true), "stale");
    }

    @Test
    void aUnitChangedInPlaceUnderAValidIndexIsDetected() throws Exception {
        Path l2 = dir.resolve("l2.bin");
        run(l2, prompts(0, 0), true);
        IndexFile.Loaded index = (IndexFile.Loaded) IndexFile.read(IndexFile.besideL2(l2), WarmStart.geometryOf(WarmRestartHarness.SETTINGS));
        long offset = (long) index.snapshot().entries().get(5).slot() * index.snapshot().laneBytes() + 100;
        try (FileChannel channel = FileChannel.open(l2, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), offset);
        }
        assertCold(run(l2, prompts(0, 100), true), "damaged", "1 of " + KEYS_PER_SET + " units", "changed in place");
    }

    @Test
    void aSecondRunOnTheSameFileIsRefusedWhileTheFirstHoldsIt() throws Exception {
        Path l2 = dir.resolve("l2.bin");
        run(l2, prompts(0, 0), true);
        try (WarmStart.Opened first = WarmStart.open(WarmRestartHarness.SETTINGS, l2, new tierlab.model.trace.DecisionTrace())) {
            assertTrue(first.warm(), first.message());
            java.io.IOException refused = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                    () -> WarmStart.open(WarmRestartHarness.SETTINGS, l2, new tierlab.model.trace.DecisionTrace()));
            assertTrue(refused.getMessage().contains("is held by another run"), refused.getMessage());
        }
        // The first holder started a session and saved nothing: its index is stale, and the lock is free again.
        assertCold(run(l2, prompts(0, 100), true), "stale");
    }

    @Test
    void aTornIdentityTrailerStartsCold() throws Exception {
        Path l2 = dir.resolve("l2.bin");
        run(l2, prompts(0, 0), true);
        long trailer = L2Identity.trailerOffset(WarmStart.geometryOf(WarmRestartHarness.SETTINGS));
        try (FileChannel channel = FileChannel.open(l2, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] {0x7f}), trailer + 40);
        }
        assertCold(run(l2, prompts(0, 100), true), "CRC32C");
        assertTrue(run(l2, prompts(0, 200), true).opened().warm(), "the cold run's clean shutdown gives a valid index again");
    }

    @Test
    void anIndexWithKeysSwappedBetweenSlotsIsRejected() throws Exception {
        Path l2 = dir.resolve("l2.bin");
        run(l2, prompts(0, 0), true);
        assertTrue(IndexForgery.swapKeys(l2, false));
        // Before the checksums named their keys: accepted, and both swapped keys served each other's bytes.
        assertCold(run(l2, prompts(0, 100), true), "damaged", "2 of " + KEYS_PER_SET + " units",
                "names keys it was not saved with");
    }

    @Test
    void anIndexNamingAKeyTheFileNeverHeldIsRejected() throws Exception {
        Path l2 = dir.resolve("l2.bin");
        run(l2, prompts(0, 0), true);
        assertTrue(IndexForgery.foreignKey(l2, false));
        assertCold(run(l2, prompts(0, 100), true), "damaged", "1 of " + KEYS_PER_SET + " units");
    }

    @Test
    void aForgedIndexWithRecomputedChecksumsIsCaughtByThePayloadChecksAndNeverSavedAgain() throws Exception {
        Path l2 = dir.resolve("l2.bin");
        run(l2, prompts(0, 0), true);
        assertTrue(IndexForgery.swapKeys(l2, true));
        Outcome forged = run(l2, prompts(0, 100), true);
        assertTrue(forged.opened().warm(), "checksums recomputed for the forged keys pass at open: " + forged.opened().message());
        assertEquals(2, forged.report().mismatches(), "the two swapped keys' loads are caught by their payload");
        assertFalse(forged.saved().saved(), "a run that served wrong bytes saves no index");
        assertTrue(forged.saved().dropped().contains("served 2 loads with wrong bytes"), forged.saved().dropped());
        assertFalse(Files.exists(IndexFile.besideL2(l2)), "and the forged index is gone");
        assertCold(run(l2, prompts(0, 200), true), "does not exist");
    }

    @Test
    void aRunWhoseFileWasReplacedUnderItSavesNoIndex() throws Exception {
        Path l2 = dir.resolve("l2.bin");
        run(l2, prompts(0, 0), true);
        Outcome replaced = run(l2, prompts(0, 100), true, opened -> {
            Files.move(l2, dir.resolve("away.bin"));
            Files.copy(dir.resolve("away.bin"), l2);
        });
        assertFalse(replaced.saved().saved());
        assertTrue(replaced.saved().dropped().contains("was removed or replaced while this run held it"), replaced.saved().dropped());
        assertFalse(Files.exists(IndexFile.besideL2(l2)));
    }

    @Test
    void noRunOpensTheFileThroughAnotherNameWhileOneHoldsIt() throws Exception {
        Path l2 = dir.resolve("l2.bin");
        run(l2, prompts(0, 0), true);
        Path symlink = Files.createSymbolicLink(dir.resolve("link.bin"), l2);
        Path hardLink = Files.createLink(dir.resolve("hard.bin"), l2);
        Outcome holder = run(l2, prompts(0, 100), true, opened -> {
            for (Path other : java.util.List.of(l2, symlink, hardLink)) {
                java.io.IOException refused = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                        () -> WarmStart.open(WarmRestartHarness.SETTINGS, other, new tierlab.model.trace.DecisionTrace()));
                assertTrue(refused.getMessage().contains("is held by another run"), refused.getMessage());
            }
        });
        assertTrue(holder.opened().warm());
        assertEquals(0, holder.report().mismatches());
        assertEquals(KEYS_PER_SET, holder.report().loadMatches());
        // Through the symlink the file is the same, but its index beside the link is another: a cold start, then warm.
        assertCold(run(symlink, prompts(0, 200), true), "does not exist");
        assertTrue(run(symlink, prompts(0, 300), true).opened().warm());
        assertCold(run(hardLink, prompts(0, 400), true), "does not exist");
        assertCold(run(l2, prompts(0, 500), true), "stale");
    }
}
