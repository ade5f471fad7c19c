package tierlab.engine.persist;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.CRC32C;
import tierlab.model.geometry.BlockKey;
import tierlab.model.l2.L2Index;
import tierlab.model.l2.L2Snapshot;

/**
 * A CRC32C per unit (slot, lane) of every key an index keeps, taken from the L2 file's bytes at
 * clean shutdown and checked again before a warm start: the last line of defence against bytes
 * that changed under an index whose identity still matches (a tool or a person writing into the
 * file in place). Offsets follow the lane-major layout of {@link tierlab.model.geometry.Geometry}.
 *
 * <p>Each checksum covers the key the index names for the unit and the lane as well as the bytes
 * (CRC32C of key.hi, key.lo, lane, big-endian, then the unit's bytes): an index whose entries were
 * swapped, or which names a stale or foreign key for a slot, fails the check even though every
 * slot still holds the bytes it held at save. The checksum is not a secret: an index rewritten
 * with checksums recomputed for other keys passes it, and only the payload checks of a run
 * (which fail the run) catch that.
 */
public final class UnitChecksums {

    /** key.hi, key.lo and the lane, before the unit's bytes. */
    private static final int KEY_LANE_BYTES = 20;

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
                    L2Index.EntryRecord entry = entries.get(e);
                    crcs[e * tp + lane] = crcOf(channel, entry.key(), lane, unitOffset(snapshot, entry.slot(), lane), unit);
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
                    if (crcOf(channel, entry.key(), lane, unitOffset(snapshot, entry.slot(), lane), unit) != expected[e * tp + lane]) {
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
                : differing + " of " + expected.length + " units in the L2 file do not have the checksum the index "
                        + "recorded for their keys (first: " + first + "): the file was changed in place, or the index "
                        + "names keys it was not saved with";
    }

    /** CRC32C of the unit's key and lane, then of the unit's bytes: a checksum that vouches for a key, not only for bytes. */
    private static int crcOf(FileChannel channel, BlockKey key, int lane, long offset, ByteBuffer buffer) throws IOException {
        buffer.clear();
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, offset + buffer.position()) < 0) {
                throw new IOException("the L2 file ends inside the unit at byte " + offset);
            }
        }
        buffer.flip();
        CRC32C crc = new CRC32C();
        crc.update(ByteBuffer.allocate(KEY_LANE_BYTES).putLong(key.hi()).putLong(key.lo()).putInt(lane).flip());
        crc.update(buffer);
        return (int) crc.getValue();
    }
}
