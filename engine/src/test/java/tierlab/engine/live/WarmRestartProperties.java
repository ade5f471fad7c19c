package tierlab.engine.live;

import tierlab.model.request.RequestSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.engine.persist.IndexFile;
import tierlab.engine.persist.L2FileLock;
import tierlab.engine.persist.L2Identity;
import tierlab.model.trace.DecisionTrace;

/**
 * Warm restart under generated histories: sequences of clean runs, runs that crash after any
 * number of prompts (or before their first write), each through one of three names of the file
 * (its path, a symlink, a hard link), with opens under every name attempted while a run holds it;
 * saves torn half way, another run's index or L2 file put in place, the L2 file zeroed, a unit or
 * the index damaged, an old index put back, a torn identity trailer, an index forged with swapped
 * or foreign keys — and restarts after each. Every run checks every loaded byte against its key's
 * payload: the property is 0 wrong bytes ever, no second open while a run holds the file, a warm
 * start whenever the index beside the name is known to be valid (a clean shutdown through that name
 * and nothing touched since), with the whole first pass served from L2, and a cold start whenever
 * it is known to be invalid. {@code TIERLAB_PROPERTY_EXAMPLES} makes the run longer.
 */
class WarmRestartProperties {
    private static final long SEED = 0x17_01L;
    private static final int KEY_SETS = 3;
    private static final int KEYS_PER_SET = WarmRestartHarness.PROMPTS * WarmRestartHarness.BLOCKS_PER_PROMPT;

    /** One step of a history; each is applied with a key set (0..2) that the runs and some damage use. */
    enum Step {
        CLEAN_RUN, CRASH_MID_RUN, CRASH_BEFORE_FIRST_WRITE, TORN_SAVE, FOREIGN_INDEX, FOREIGN_L2, ZERO_L2,
        DAMAGE_UNIT, DAMAGE_INDEX, OLD_INDEX, TORN_TRAILER, FORGED_SWAP, FORGED_KEY
    }

    /** The names a run may open the L2 file by; each has its own index beside it. */
    enum Name { PLAIN, SYMLINK, HARD_LINK }

    /**
     * The steps a code picks from: clean runs and forgeries more often than the rest, so that a
     * short history often has a valid index to damage and a restart to read the damage back.
     */
    private static final List<Step> STEPS = weighted();
    /** The names a run's code picks from: the plain path as often as both links. */
    private static final List<Name> NAMES = List.of(Name.PLAIN, Name.PLAIN, Name.SYMLINK, Name.HARD_LINK);

    private static List<Step> weighted() {
        List<Step> steps = new java.util.ArrayList<>(List.of(Step.values()));
        for (int extra = 0; extra < 3; extra++) {
            steps.add(Step.CLEAN_RUN);
        }
        steps.add(Step.FORGED_SWAP);
        steps.add(Step.FORGED_KEY);
        return List.copyOf(steps);
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
                .forAll(lists().of(integers().between(0, STEPS.size() * KEY_SETS * NAMES.size() - 1)).ofSizeBetween(1, 12))
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

    /** What the history knows about each name's index, and the key set its last clean run stored. */
    private static final class Knowledge {
        final Map<Name, Validity> validity = new EnumMap<>(Name.class);
        final Map<Name, Integer> lastCleanSet = new EnumMap<>(Name.class);

        Knowledge() {
            for (Name name : Name.values()) {
                validity.put(name, Validity.INVALID);
                lastCleanSet.put(name, -1);
            }
        }

        /** The file's bytes or identity changed: every index but the plain one's becomes {@code others}. */
        void fileChanged(Validity plain, Validity others) {
            for (Name name : Name.values()) {
                validity.put(name, name == Name.PLAIN ? plain : others);
            }
        }
    }

    private void replay(Path foreign, List<Integer> codes) throws Exception {
        Path home = Files.createDirectory(dir.resolve("history-" + examples++));
        Path l2 = home.resolve("l2.bin");
        Path index = IndexFile.besideL2(l2);
        Knowledge known = new Knowledge();
        byte[] firstSavedIndex = null;
        // Whether a run opened the L2 file after the first index was saved: that index is then stale.
        boolean runSinceFirstSave = false;
        long nextRequestId = 0;
        // Every history starts and ends with a restart, so damage done last is read back too.
        for (int i = 0; i <= codes.size(); i++) {
            int code = i < codes.size() ? codes.get(i) : STEPS.indexOf(Step.CLEAN_RUN) * KEY_SETS * NAMES.size();
            Step step = STEPS.get(code / (KEY_SETS * NAMES.size()));
            int keySet = code % KEY_SETS;
            // Links need a file to name: before the first run, or once the file is gone, only its path opens it.
            Name name = Files.exists(l2) ? NAMES.get(code % (KEY_SETS * NAMES.size()) / KEY_SETS) : Name.PLAIN;
            String where = "step " + i + " " + step + "(" + keySet + ", " + name + ") of " + codes;
            Validity plain = known.validity.get(Name.PLAIN);
            switch (step) {
                case CLEAN_RUN, CRASH_MID_RUN, CRASH_BEFORE_FIRST_WRITE -> {
                    List<RequestSpec> requests = prompts(keySet, nextRequestId);
                    nextRequestId += 1_000;
                    if (step == Step.CRASH_MID_RUN) {
                        requests = requests.subList(0, 1 + (i * 7) % WarmRestartHarness.PROMPTS);
                    } else if (step == Step.CRASH_BEFORE_FIRST_WRITE) {
                        requests = List.of();
                    }
                    List<Path> names = names(home, l2);
                    Path opened = names.get(name.ordinal());
                    WarmRestartHarness.Outcome outcome = WarmRestartHarness.run(opened, requests, step == Step.CLEAN_RUN,
                            held -> assertEveryNameRefused(names, where));
                    String message = where + ": " + outcome.opened().message();
                    assertEquals(0, outcome.report().mismatches(), message + " " + outcome.report().mismatchExamples());
                    if (known.validity.get(name) == Validity.VALID) {
                        assertTrue(outcome.opened().warm(), message);
                        if (keySet == known.lastCleanSet.get(name) && step == Step.CLEAN_RUN) {
                            assertEquals(KEYS_PER_SET, outcome.report().loadMatches(), message);
                        }
                    } else if (known.validity.get(name) == Validity.INVALID) {
                        assertFalse(outcome.opened().warm(), message);
                    }
                    // A new session in the trailer: every other name's index is stale from now on.
                    known.fileChanged(Validity.INVALID, Validity.INVALID);
                    if (step == Step.CLEAN_RUN) {
                        assertTrue(outcome.saved().saved(), message + ": " + outcome.saved().dropped());
                        known.validity.put(name, Validity.VALID);
                        known.lastCleanSet.put(name, keySet);
                    }
                    runSinceFirstSave |= firstSavedIndex != null;
                    if (step == Step.CLEAN_RUN && name == Name.PLAIN && firstSavedIndex == null) {
                        firstSavedIndex = Files.readAllBytes(index);
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
                    known.validity.put(Name.PLAIN, Validity.UNKNOWN); // valid exactly when the L2 file is an untouched copy of the foreign one
                }
                case FOREIGN_L2 -> {
                    Files.copy(foreign, l2, StandardCopyOption.REPLACE_EXISTING);
                    known.fileChanged(Validity.UNKNOWN, Validity.INVALID);
                }
                case ZERO_L2 -> {
                    if (Files.exists(l2)) {
                        long size = Files.size(l2);
                        Files.delete(l2);
                        try (FileChannel channel = FileChannel.open(l2, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                            channel.write(ByteBuffer.allocate(1), size - 1);
                        }
                        known.fileChanged(Validity.INVALID, Validity.INVALID);
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
                        // The unit may or may not be one that another name's index keeps.
                        known.fileChanged(Validity.INVALID, Validity.UNKNOWN);
                    }
                }
                case DAMAGE_INDEX -> {
                    if (Files.exists(index)) {
                        byte[] bytes = Files.readAllBytes(index);
                        bytes[(bytes.length / 3) * keySet + 9] ^= 0x01;
                        Files.write(index, bytes);
                        known.validity.put(Name.PLAIN, Validity.INVALID);
                    }
                }
                case OLD_INDEX -> {
                    if (firstSavedIndex != null && !(Files.exists(index) && Arrays.equals(firstSavedIndex, Files.readAllBytes(index)))) {
                        Files.write(index, firstSavedIndex);
                        // Stale once a later run opened the file; else it may still describe it (unless damaged since).
                        known.validity.put(Name.PLAIN, runSinceFirstSave ? Validity.INVALID : Validity.UNKNOWN);
                    }
                }
                case TORN_TRAILER -> {
                    if (Files.exists(l2)) {
                        long trailer = L2Identity.trailerOffset(WarmStart.geometryOf(WarmRestartHarness.SETTINGS));
                        try (FileChannel channel = FileChannel.open(l2, StandardOpenOption.WRITE)) {
                            channel.write(ByteBuffer.wrap(new byte[] {(byte) 0xA5, 0x5A}), trailer + 16 + 8 * keySet);
                        }
                        known.fileChanged(Validity.INVALID, Validity.INVALID);
                    }
                }
                case FORGED_SWAP, FORGED_KEY -> {
                    // Whole and checksummed, the unit checksums kept: the keys they were saved with no longer match.
                    boolean forged = step == Step.FORGED_SWAP ? IndexForgery.swapKeys(l2, false) : IndexForgery.foreignKey(l2, false);
                    if (forged) {
                        known.validity.put(Name.PLAIN, plain == Validity.VALID ? Validity.INVALID : plain);
                    }
                }
            }
        }
    }

    /**
     * The file's three names, the links made again for the file the path names now (a history may
     * have replaced it); a missing file has only its path.
     */
    private static List<Path> names(Path home, Path l2) throws IOException {
        Path symlink = home.resolve("link.bin");
        Path hardLink = home.resolve("hard.bin");
        Files.deleteIfExists(symlink);
        Files.deleteIfExists(hardLink);
        if (!Files.exists(l2)) {
            return List.of(l2, l2, l2);
        }
        Files.createSymbolicLink(symlink, l2.getFileName());
        Files.createLink(hardLink, l2);
        return List.of(l2, symlink, hardLink);
    }

    private static void assertEveryNameRefused(List<Path> names, String where) {
        for (Path other : names) {
            IOException refused = assertThrows(IOException.class,
                    () -> WarmStart.open(WarmRestartHarness.SETTINGS, other, new DecisionTrace()), where + ": " + other);
            assertTrue(refused instanceof L2FileLock.HeldException, where + ": " + refused);
        }
    }
}
