package tierlab.engine.persist;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.CRC32C;
import tierlab.model.l2.L2Index;
import tierlab.model.l2.L2Snapshot;

/**
 * A CRC32C per unit (slot, lane) of every key an index keeps, taken from the L2 file's bytes at
 * clean shutdown and checked again before a warm start: the last line of defence against bytes
 * that changed under an index whose identity still matches (a tool or a person writing into the
 * file in place). Offsets follow the lane-major layout of {@link tierlab.model.geometry.Geometry}.
 */
public final class UnitChecksums {

    private UnitChecksums() {}

    /** Byte offset of unit (slot, lane) in the L2 file. */
    static long unitOffset(L2Snapshot snapshot, int slot, int lane) {
        return ((long) lane * snapshot.slotCount() + slot) * snapshot.laneBytes();
    }

    /** The checksums of {@code snapshot}'s entries as the L2 file holds them now: entry-major, lane-minor. */
    public static int[] compute(Path l2Path, L2Snapshot snapshot) throws IOException {
        List<L2Index.EntryRecord> entries = snapshot.entries();
        int tp = snapshot.tp();
        int[] crcs = new int[Math.multiplyExact(entries.size(), tp)];
        if (crcs.length == 0) {
            return crcs;
        }
        ByteBuffer unit = ByteBuffer.allocateDirect(Math.toIntExact(snapshot.laneBytes()));
        try (FileChannel channel = FileChannel.open(l2Path, StandardOpenOption.READ)) {
            for (int e = 0; e < entries.size(); e++) {
                for (int lane = 0; lane < tp; lane++) {
                    crcs[e * tp + lane] = crcOf(channel, unitOffset(snapshot, entries.get(e).slot(), lane), unit);
                }
            }
        }
        return crcs;
    }

    /**
     * Null when every unit of every entry still has the recorded checksum; otherwise one sentence
     * saying how many units differ and naming the first (or why the file could not be read).
     */
    public static String verify(Path l2Path, L2Snapshot snapshot, int[] expected) {
        List<L2Index.EntryRecord> entries = snapshot.entries();
        int tp = snapshot.tp();
        if (expected.length != (long) entries.size() * tp) {
            return "it holds " + expected.length + " unit checksums for " + entries.size() + " keys with tp=" + tp;
        }
        if (expected.length == 0) {
            return null;
        }
        ByteBuffer unit = ByteBuffer.allocateDirect(Math.toIntExact(snapshot.laneBytes()));
        long differing = 0;
        String first = null;
        try (FileChannel channel = FileChannel.open(l2Path, StandardOpenOption.READ)) {
            for (int e = 0; e < entries.size(); e++) {
                L2Index.EntryRecord entry = entries.get(e);
                for (int lane = 0; lane < tp; lane++) {
                    if (crcOf(channel, unitOffset(snapshot, entry.slot(), lane), unit) != expected[e * tp + lane]) {
                        differing++;
                        if (first == null) {
                            first = "key " + entry.key() + " at slot " + entry.slot() + " lane " + lane;
                        }
                    }
                }
            }
        } catch (IOException e) {
            return "the L2 file's units could not be read to check them: " + e.getMessage();
        }
        return differing == 0 ? null
                : differing + " of " + expected.length + " units in the L2 file no longer have the checksum the index "
                        + "recorded (first: " + first + "): the file was changed in place";
    }

    private static int crcOf(FileChannel channel, long offset, ByteBuffer buffer) throws IOException {
        buffer.clear();
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, offset + buffer.position()) < 0) {
                throw new IOException("the L2 file ends inside the unit at byte " + offset);
            }
        }
        buffer.flip();
        CRC32C crc = new CRC32C();
        crc.update(buffer);
        return (int) crc.getValue();
    }
}
