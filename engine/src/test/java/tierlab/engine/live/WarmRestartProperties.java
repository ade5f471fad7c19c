package tierlab.engine.live;

import tierlab.model.request.RequestSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static tierlab.engine.live.WarmRestartHarness.prompts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.engine.persist.IndexFile;
import tierlab.engine.persist.L2Identity;

/**
 * Warm restart under generated histories: sequences of clean runs, runs that crash after any
 * number of prompts (or before their first write), saves torn half way, another run's index or L2
 * file put in place, the L2 file zeroed, a unit or the index damaged, an old index put back, a
 * torn identity trailer — and restarts after each. Every run checks every loaded byte against its
 * key's payload: the property is 0 wrong bytes ever, a warm start whenever the index is known to be
 * valid (a clean shutdown and nothing touched since), with the whole first pass served from L2, and
 * a cold start whenever it is known to be invalid. {@code TIERLAB_PROPERTY_EXAMPLES} makes the run longer.
 */
class WarmRestartProperties {
    private static final long SEED = 0x17_01L;
    private static final int KEY_SETS = 3;
    private static final int KEYS_PER_SET = WarmRestartHarness.PROMPTS * WarmRestartHarness.BLOCKS_PER_PROMPT;

    /** One step of a history; each is applied with a key set (0..2) that the runs and some damage use. */
    enum Step {
        CLEAN_RUN, CRASH_MID_RUN, CRASH_BEFORE_FIRST_WRITE, TORN_SAVE, FOREIGN_INDEX, FOREIGN_L2, ZERO_L2,
        DAMAGE_UNIT, DAMAGE_INDEX, OLD_INDEX, TORN_TRAILER
    }

    /** What the history says about the index beside the L2 file; UNKNOWN when damage may or may not have hit it. */
    enum Validity { VALID, INVALID, UNKNOWN }

    @TempDir
    Path dir;

    private int examples;

    @Test
    void noHistoryServesWrongBytesAndValidIndexesStartWarm() throws Exception {
        Path foreign = dir.resolve("foreign.bin");
        // Another process's L2 file of the same geometry, holding the same keys at other slots.
        WarmRestartHarness.run(foreign, prompts(2, 0), true);
        WarmRestartHarness.run(foreign, prompts(0, 100), true);
        int count = Integer.parseInt(System.getenv().getOrDefault("TIERLAB_PROPERTY_EXAMPLES", "40"));
        qt().withFixedSeed(SEED).withExamples(count)
                .forAll(lists().of(integers().between(0, Step.values().length * KEY_SETS - 1)).ofSizeBetween(1, 10))
                .checkAssert(codes -> {
                    try {
                        replay(foreign, codes);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
    }

    private void replay(Path foreign, List<Integer> codes) throws Exception {
        Path home = Files.createDirectory(dir.resolve("history-" + examples++));
        Path l2 = home.resolve("l2.bin");
        Path index = IndexFile.besideL2(l2);
        Validity validity = Validity.INVALID;
        int lastCleanSet = -1;
        byte[] firstSavedIndex = null;
        // Whether a run opened the L2 file after the first index was saved: that index is then stale.
        boolean runSinceFirstSave = false;
        long nextRequestId = 0;
        // Every history starts and ends with a restart, so damage done last is read back too.
        for (int i = 0; i <= codes.size(); i++) {
            Step step = i < codes.size() ? Step.values()[codes.get(i) / KEY_SETS] : Step.CLEAN_RUN;
            int keySet = i < codes.size() ? codes.get(i) % KEY_SETS : 0;
            String where = "step " + i + " " + step + "(" + keySet + ") of " + codes;
            switch (step) {
                case CLEAN_RUN, CRASH_MID_RUN, CRASH_BEFORE_FIRST_WRITE -> {
                    List<tierlab.model.request.RequestSpec> requests = prompts(keySet, nextRequestId);
                    nextRequestId += 1_000;
                    if (step == Step.CRASH_MID_RUN) {
                        requests = requests.subList(0, 1 + (i * 7) % WarmRestartHarness.PROMPTS);
                    } else if (step == Step.CRASH_BEFORE_FIRST_WRITE) {
                        requests = List.of();
                    }
                    WarmRestartHarness.Outcome outcome = WarmRestartHarness.run(l2, requests, step == Step.CLEAN_RUN);
                    String message = where + ": " + outcome.opened().message();
                    assertEquals(0, outcome.report().mismatches(), message + " " + outcome.report().mismatchExamples());
                    if (validity == Validity.VALID) {
                        assertTrue(outcome.opened().warm(), message);
                        if (keySet == lastCleanSet && step == Step.CLEAN_RUN) {
                            assertEquals(KEYS_PER_SET, outcome.report().loadMatches(), message);
                        }
                    } else if (validity == Validity.INVALID) {
                        assertFalse(outcome.opened().warm(), message);
                    }
                    validity = step == Step.CLEAN_RUN ? Validity.VALID : Validity.INVALID;
                    runSinceFirstSave |= firstSavedIndex != null;
                    if (step == Step.CLEAN_RUN) {
                        lastCleanSet = keySet;
                        if (firstSavedIndex == null) {
                            firstSavedIndex = Files.readAllBytes(index);
                        }
                    }
                }
                case TORN_SAVE -> {
                    // A crash while the index was being written leaves only part of the temporary file.
                    if (Files.exists(index)) {
                        byte[] bytes = Files.readAllBytes(index);
                        Files.write(IndexFile.tempPathFor(index), Arrays.copyOf(bytes, bytes.length / (keySet + 2)));
                    }
                }
                case FOREIGN_INDEX -> {
                    Files.copy(IndexFile.besideL2(foreign), index, StandardCopyOption.REPLACE_EXISTING);
                    validity = Validity.UNKNOWN; // valid exactly when the L2 file is an untouched copy of the foreign one
                }
                case FOREIGN_L2 -> {
                    Files.copy(foreign, l2, StandardCopyOption.REPLACE_EXISTING);
                    validity = Validity.UNKNOWN;
                }
                case ZERO_L2 -> {
                    if (Files.exists(l2)) {
                        long size = Files.size(l2);
                        Files.delete(l2);
                        try (FileChannel channel = FileChannel.open(l2, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                            channel.write(ByteBuffer.allocate(1), size - 1);
                        }
                        validity = Validity.INVALID;
                    }
                }
                case DAMAGE_UNIT -> {
                    if (IndexFile.read(index, WarmStart.geometryOf(WarmRestartHarness.SETTINGS)) instanceof IndexFile.Loaded loaded
                            && !loaded.snapshot().entries().isEmpty() && Files.exists(l2)) {
                        var entries = loaded.snapshot().entries();
                        long offset = entries.get((keySet * 31) % entries.size()).slot() * loaded.snapshot().laneBytes() + 64 * keySet;
                        try (FileChannel channel = FileChannel.open(l2, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                            ByteBuffer one = ByteBuffer.allocate(1);
                            channel.read(one, offset);
                            one.put(0, (byte) (one.get(0) ^ 0x40)).rewind();
                            channel.write(one, offset);
                        }
                        validity = Validity.INVALID;
                    }
                }
                case DAMAGE_INDEX -> {
                    if (Files.exists(index)) {
                        byte[] bytes = Files.readAllBytes(index);
                        bytes[(bytes.length / 3) * keySet + 9] ^= 0x01;
                        Files.write(index, bytes);
                        validity = Validity.INVALID;
                    }
                }
                case OLD_INDEX -> {
                    if (firstSavedIndex != null && !(Files.exists(index) && Arrays.equals(firstSavedIndex, Files.readAllBytes(index)))) {
                        Files.write(index, firstSavedIndex);
                        // Stale once a later run opened the file; else it may still describe it (unless damaged since).
                        validity = runSinceFirstSave ? Validity.INVALID : Validity.UNKNOWN;
                    }
                }
                case TORN_TRAILER -> {
                    if (Files.exists(l2)) {
                        long trailer = L2Identity.trailerOffset(WarmStart.geometryOf(WarmRestartHarness.SETTINGS));
                        try (FileChannel channel = FileChannel.open(l2, StandardOpenOption.WRITE)) {
                            channel.write(ByteBuffer.wrap(new byte[] {(byte) 0xA5, 0x5A}), trailer + 16 + 8 * keySet);
                        }
                        validity = Validity.INVALID;
                    }
                }
            }
        }
    }
}
