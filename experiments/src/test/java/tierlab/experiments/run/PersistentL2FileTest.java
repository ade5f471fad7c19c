package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static tierlab.experiments.run.RunCommandTest.run;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;
import tierlab.engine.persist.IndexFile;
import tierlab.engine.persist.UnitChecksums;
import tierlab.hunt.testkit.CommandRun;
import tierlab.model.l2.L2Index;
import tierlab.model.l2.L2Snapshot;

/**
 * {@code store.l2File} as an adversarial user meets it: what the field names is checked before
 * any output (never a user's file overwritten, one line naming the field and the file), a second
 * process on the same file is refused, a run that served wrong bytes fails and keeps no index, and
 * a failure after the file opened says what failed.
 */
class PersistentL2FileTest {

    @TempDir
    Path folder;

    private static final String LIVE = WarmRestartRunTest.LIVE;

    /** One process's run, with what it printed on System.err (the run's own lines) as well. */
    private record Outcome(CommandRun run, String stderr) {
        String all() {
            return run.err() + stderr;
        }
    }

    private Outcome runLive(String yaml, String out) throws IOException {
        Path file = folder.resolve("live.yaml");
        Files.writeString(file, yaml);
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        CommandRun run;
        try (PrintStream err = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            System.setErr(err);
            run = run("run", file.toString(), "--out", folder.resolve(out).toString(), "-q");
        } finally {
            System.setErr(original);
        }
        return new Outcome(run, captured.toString(StandardCharsets.UTF_8));
    }

    private Path cache() throws IOException {
        return Files.createDirectories(folder.resolve("cache"));
    }

    /** Refused before any output: exit 1, one line naming the field and {@code fragments}, no output folder. */
    private void assertRefused(String yaml, String... fragments) throws IOException {
        Outcome refused = runLive(yaml, "refused");
        assertEquals(1, refused.run().exitCode(), refused.all());
        String line = refused.run().err().strip();
        assertFalse(line.contains("\n"), "one line: " + line);
        assertTrue(line.contains("store.l2File"), line);
        for (String fragment : fragments) {
            assertTrue(line.contains(fragment), () -> "'" + fragment + "' in: " + line);
        }
        assertFalse(Files.exists(folder.resolve("refused")), "nothing written before the refusal");
    }

    @Test
    void aFileWithoutTierlabsIdentityIsNeverOverwritten() throws IOException {
        byte[] precious = "a user's data, not an L2 file\n".repeat(500).getBytes(StandardCharsets.UTF_8);
        Files.write(cache().resolve("l2.bin"), precious);
        // Before: the run sized this file to the L2 capacity and wrote units over it.
        assertRefused(LIVE, "cache/l2.bin exists and is a file without tierlab's identity", "store.l2FileOverwrite: true");
        assertArrayEquals(precious, Files.readAllBytes(folder.resolve("cache/l2.bin")), "the user's file is untouched");

        // The experiment file itself.
        assertRefused(LIVE.replace("l2File: cache/l2.bin", "l2File: live.yaml"), "live.yaml exists and is a file without");
        assertEquals(LIVE.replace("l2File: cache/l2.bin", "l2File: live.yaml"), Files.readString(folder.resolve("live.yaml")));

        // Said explicitly: written over, and from then on the file is tierlab's own.
        Outcome overwritten = runLive(LIVE.replace("l2File: cache/l2.bin", "l2File: cache/l2.bin, l2FileOverwrite: true"), "a");
        assertEquals(0, overwritten.run().exitCode(), overwritten.all());
        Outcome warm = runLive(LIVE, "b");
        assertEquals(0, warm.run().exitCode(), warm.all());
        assertTrue(warm.stderr().contains("warm start:"), warm.stderr());
    }

    @Test
    void whatCannotBeAnL2FileIsRefusedNamingIt() throws Exception {
        assertRefused(LIVE.replace("l2File: cache/l2.bin", "l2File: \"\""), "empty");
        Files.createDirectories(folder.resolve("cache/dir.bin"));
        assertRefused(LIVE.replace("cache/l2.bin", "cache/dir.bin"), "dir.bin is a directory");
        assertRefused(LIVE.replace("cache/l2.bin", "missing/l2.bin"), "the folder", "missing of", "does not exist");
        Files.createDirectories(folder.resolve("cache/l2.bin.index"));
        assertRefused(LIVE, "l2.bin.index, where the run keeps the L2 file's index, is a directory");
        Files.delete(folder.resolve("cache/l2.bin.index"));
        Process fifo = new ProcessBuilder("mkfifo", folder.resolve("cache/fifo.bin").toString()).start();
        if (fifo.waitFor() == 0) {
            assertRefused(LIVE.replace("cache/l2.bin", "cache/fifo.bin"), "fifo.bin is a FIFO");
        }
        assertFalse(Files.exists(folder.resolve("cache/l2.bin")), "no file was created by a refused run");
    }

    @Test
    void anImmutableFileIsRefusedAtValidation() throws Exception {
        Path l2 = cache().resolve("l2.bin");
        Files.write(l2, new byte[0]);
        Process chattr = new ProcessBuilder("chattr", "+i", l2.toString()).redirectErrorStream(true).start();
        Assumptions.assumeTrue(chattr.waitFor() == 0, "chattr +i needs root and a file system that supports it");
        try {
            assertRefused(LIVE, "cache/l2.bin cannot be opened for writing", "EPERM");
        } finally {
            new ProcessBuilder("chattr", "-i", l2.toString()).start().waitFor();
        }
    }

    @Test
    void aFileAnotherProcessHoldsIsRefusedUnderEveryName() throws Exception {
        Path l2 = cache().resolve("l2.bin");
        Outcome first = runLive(LIVE, "a");
        assertEquals(0, first.run().exitCode(), first.all());
        Files.createSymbolicLink(folder.resolve("cache/link.bin"), l2.getFileName());
        Files.createLink(folder.resolve("cache/hard.bin"), l2);
        Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                L2FileHolder.class.getName(), l2.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
            assertEquals("locked", out.readLine());
            for (String name : List.of("cache/l2.bin", "cache/link.bin", "cache/hard.bin")) {
                // Before: a ".lock" beside the name; a link's name had its own, and both runs rewrote the same units.
                assertRefused(LIVE.replace("cache/l2.bin", name), name, "is held by another run");
            }
        } finally {
            holder.destroyForcibly();
            holder.waitFor(30, TimeUnit.SECONDS);
        }
        Outcome after = runLive(LIVE, "b");
        assertEquals(0, after.run().exitCode(), after.all());
        assertTrue(after.stderr().contains("warm start:"), "the holder never wrote: the index is still valid: " + after.stderr());
    }

    @Test
    void aRunThatServedWrongBytesFailsAndKeepsNoIndex() throws IOException {
        cache();
        Outcome first = runLive(LIVE, "a");
        assertEquals(0, first.run().exitCode(), first.all());
        Path l2 = folder.resolve("cache/l2.bin");
        forgeWithRecomputedChecksums(l2);

        Outcome forged = runLive(LIVE, "b");
        // Before: exit 0, run.failed 0, and the forged index saved again for the next run.
        assertEquals(1, forged.run().exitCode(), forged.all());
        Table results = Table.read().csv(folder.resolve("b/results.csv").toFile());
        double wrong = results.numberColumn("run.realMismatches").getDouble(0);
        assertTrue(wrong > 0, "the forged keys' loads were caught");
        assertEquals(1.0, results.numberColumn("run.failed").getDouble(0));
        assertEquals("wrong-bytes", results.column("run.failureKind").getString(0));
        String count = "served " + (long) wrong + " loads with wrong bytes";
        assertTrue(Files.readString(folder.resolve("b/report.md")).contains(count), "report.md names the count");
        assertTrue(forged.stderr().contains("tierlab: run 0: " + count), forged.stderr());
        assertTrue(forged.stderr().contains("no L2 index saved for " + l2.toAbsolutePath()), forged.stderr());
        assertFalse(Files.exists(IndexFile.besideL2(l2)), "no index for the next run to trust");

        Outcome next = runLive(LIVE, "c");
        assertEquals(0, next.run().exitCode(), next.all());
        assertTrue(next.stderr().contains("does not exist; starting with a cold L2"), next.stderr());
    }

    @Test
    void aSaveThatFailsSaysTheSaveFailedNotTheOpen() throws IOException {
        cache();
        Outcome first = runLive(LIVE, "a");
        assertEquals(0, first.run().exitCode(), first.all());
        Path l2 = folder.resolve("cache/l2.bin");
        // The index's temporary file cannot be written: the run opened and served, only the save fails.
        Files.createDirectories(IndexFile.tempPathFor(IndexFile.besideL2(l2)));
        Outcome failed = runLive(LIVE, "b");
        assertEquals(1, failed.run().exitCode(), failed.all());
        String failure = Table.read().csv(folder.resolve("b/results.csv").toFile()).column("failure").getString(0);
        assertTrue(failure.startsWith("the run finished, but its L2 index could not be saved at " + IndexFile.besideL2(l2)), failure);
        assertFalse(failure.contains("cannot open the L2 file"), failure);
        assertFalse(failure.contains("preallocated"), failure);
    }

    @Test
    void anL2FileLargerThanTheDiskIsRefusedBeforeItIsCreated() throws IOException {
        long freeGiB = Files.getFileStore(cache()).getUsableSpace() >> 30;
        // Big blocks keep the slot count small; the limit vouches for more than the disk has.
        String huge = LIVE.replace("promptTokens: 160, promptSpreadTokens: 32", "promptTokens: 8192, blockTokens: 512")
                .replace("l1CapacityGiB: 0.0005", "l1CapacityGiB: 0.01")
                .replace("l2CapacityGiB: 0.01", "l2CapacityGiB: " + (2 * freeGiB + 1) + ", l2LimitGiB: " + (4 * freeGiB + 4));
        Outcome refused = runLive(huge, "a");
        assertEquals(1, refused.run().exitCode(), refused.all());
        assertTrue(Files.exists(folder.resolve("a/results.csv")), refused.all());
        String failure = Table.read().csv(folder.resolve("a/results.csv").toFile()).column("failure").getString(0);
        assertTrue(failure.startsWith("cannot open the L2 file " + folder.resolve("cache/l2.bin")), failure);
        assertTrue(failure.contains("free, and the L2 file needs"), failure);
        // Before: fallocate failed after open had created it, and an empty l2.bin stayed behind.
        assertFalse(Files.exists(folder.resolve("cache/l2.bin")), "no empty leftover");
    }

    /** Swaps the keys of two first blocks in the saved index, with unit checksums recomputed for the swap. */
    private static void forgeWithRecomputedChecksums(Path l2) throws IOException {
        IndexFile.Loaded loaded = IndexFile.readForItsOwnGeometry(IndexFile.besideL2(l2));
        List<L2Index.EntryRecord> entries = new ArrayList<>(loaded.snapshot().entries());
        int first = -1;
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i).parent().equals(tierlab.model.geometry.BlockKey.ROOT)) {
                if (first < 0) {
                    first = i;
                    continue;
                }
                L2Index.EntryRecord a = entries.get(first);
                L2Index.EntryRecord b = entries.get(i);
                entries.set(first, new L2Index.EntryRecord(b.key(), a.parent(), a.slot(), a.tokenCount(), a.runId(), a.version()));
                entries.set(i, new L2Index.EntryRecord(a.key(), b.parent(), b.slot(), b.tokenCount(), b.runId(), b.version()));
                break;
            }
        }
        L2Snapshot old = loaded.snapshot();
        L2Snapshot forged = new L2Snapshot(old.slotCount(), old.laneBytes(), old.tp(), old.head(), old.nextRunId(),
                old.runsOldestFirst(), entries);
        IndexFile.write(IndexFile.besideL2(l2), new IndexFile.Contents(forged, loaded.contents().stamp(),
                UnitChecksums.compute(l2, forged)));
    }
}
