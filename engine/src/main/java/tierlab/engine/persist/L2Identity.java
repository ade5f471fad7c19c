package tierlab.engine.persist;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;

/**
 * The identity an L2 file carries, so that an index can prove it describes this file as it is now.
 *
 * <p>One page after the last unit of the L2 layout (see {@link #trailerOffset}) holds a trailer
 * naming the file ({@code fileId}, random, kept for the file's life) and the current writing
 * session ({@code session}, random, new each time a run opens the file for writing). The index
 * saved on clean shutdown names both ({@link IndexFile}); at start an index is used only if the
 * trailer names the same file and the same session. Because {@link #beginWriting} writes a new
 * session and fsyncs it <em>before</em> the run's first L2 write, every index saved earlier is
 * stale from then on, whether the run ends cleanly, crashes or is killed: a crash can never leave
 * an index that matches bytes it does not describe. A file replaced by another (zeros, a copy of
 * another L2 file, another run's file) has no trailer or another identity, and its index is refused.
 *
 * <h2>Trailer format, version 1</h2>
 * Big-endian, at {@link #trailerOffset}, {@link #TRAILER_BYTES} bytes (the rest zero):
 * <pre>
 *   0  magic "TLL2FID\n"          8 bytes
 *   8  formatVersion        u32 = 1
 *  12  reserved             u32 = 0
 *  16  fileId.msb s64 | fileId.lsb s64
 *  32  session.msb s64 | session.lsb s64
 *  48  CRC32C of bytes 0..47   u32
 * </pre>
 * One page written in one call: a torn write fails the CRC and reads as no trailer (cold start).
 */
public final class L2Identity {

    static final byte[] MAGIC = {'T', 'L', 'L', '2', 'F', 'I', 'D', '\n'};
    static final int FORMAT_VERSION = 1;
    /** A whole page, so the trailer never shares a page with a unit the engine writes with O_DIRECT. */
    public static final int TRAILER_BYTES = 4096;
    private static final int BODY_BYTES = 48;

    private L2Identity() {}

    /** Which L2 file, and which writing session of it, an index describes. */
    public record Stamp(UUID fileId, UUID session) {
        public Stamp {
            Objects.requireNonNull(fileId, "fileId");
            Objects.requireNonNull(session, "session");
        }

        @Override
        public String toString() {
            return "file " + fileId + " session " + session;
        }
    }

    /** What {@link #read} found at the trailer's place. */
    public sealed interface Found permits Present, Absent {}

    public record Present(Stamp stamp) implements Found {}

    /** No valid trailer: a new file, one replaced or overwritten, a torn trailer, or one too small to hold it. */
    public record Absent(String reason) implements Found {}

    /** Where the trailer lives: the first page after the lane-major layout of {@code geometry}. */
    public static long trailerOffset(IndexFile.ExpectedGeometry geometry) {
        long layoutBytes = Math.multiplyExact(Math.multiplyExact((long) geometry.slotCount(), geometry.laneBytes()),
                geometry.tp());
        return Math.ceilDiv(layoutBytes, TRAILER_BYTES) * TRAILER_BYTES;
    }

    /** Reads the trailer of the L2 file at {@code l2Path}; never throws for a bad or missing file. */
    public static Found read(Path l2Path, IndexFile.ExpectedGeometry geometry) {
        long offset = trailerOffset(geometry);
        ByteBuffer page = ByteBuffer.allocate(BODY_BYTES + IndexFile.CRC_BYTES).order(ByteOrder.BIG_ENDIAN);
        try (FileChannel channel = FileChannel.open(l2Path, StandardOpenOption.READ)) {
            while (page.hasRemaining()) {
                if (channel.read(page, offset + page.position()) < 0) {
                    return new Absent("the L2 file ends before its identity trailer at byte " + offset
                            + " (a new, shrunk or replaced file)");
                }
            }
        } catch (NoSuchFileException e) {
            return new Absent("the L2 file " + l2Path + " does not exist");
        } catch (IOException e) {
            return new Absent("reading the L2 file's identity trailer failed: " + e.getMessage());
        }
        byte[] bytes = page.array();
        if (!Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            return new Absent("the L2 file has no identity trailer at byte " + offset + " (a new, replaced or overwritten file)");
        }
        int storedCrc = page.getInt(BODY_BYTES);
        if (storedCrc != IndexFile.crcOf(bytes, BODY_BYTES)) {
            return new Absent("the L2 file's identity trailer fails its CRC32C (torn or overwritten)");
        }
        if (page.getInt(8) != FORMAT_VERSION) {
            return new Absent("the L2 file's identity trailer is of format version "
                    + Integer.toUnsignedString(page.getInt(8)) + ", this build reads version " + FORMAT_VERSION);
        }
        return new Present(new Stamp(new UUID(page.getLong(16), page.getLong(24)), new UUID(page.getLong(32), page.getLong(40))));
    }

    /**
     * Starts a writing session: writes a trailer with the file's identity (kept from {@code found}
     * when present, new otherwise) and a new random session, and forces it to the device before
     * returning. Call it before the run's first L2 write; from then on every earlier index is stale.
     */
    public static Stamp beginWriting(Path l2Path, IndexFile.ExpectedGeometry geometry, Found found) throws IOException {
        UUID fileId = found instanceof Present present ? present.stamp().fileId() : UUID.randomUUID();
        Stamp stamp = new Stamp(fileId, UUID.randomUUID());
        write(l2Path, geometry, stamp);
        return stamp;
    }

    /** The encoded trailer page for {@code stamp}. */
    static byte[] encode(Stamp stamp) {
        ByteBuffer page = ByteBuffer.allocate(TRAILER_BYTES).order(ByteOrder.BIG_ENDIAN);
        page.put(MAGIC).putInt(FORMAT_VERSION).putInt(0)
                .putLong(stamp.fileId().getMostSignificantBits()).putLong(stamp.fileId().getLeastSignificantBits())
                .putLong(stamp.session().getMostSignificantBits()).putLong(stamp.session().getLeastSignificantBits());
        page.putInt(BODY_BYTES, IndexFile.crcOf(page.array(), BODY_BYTES));
        return page.array();
    }

    static void write(Path l2Path, IndexFile.ExpectedGeometry geometry, Stamp stamp) throws IOException {
        long offset = trailerOffset(geometry);
        ByteBuffer page = ByteBuffer.wrap(encode(stamp));
        try (FileChannel channel = FileChannel.open(l2Path, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            while (page.hasRemaining()) {
                channel.write(page, offset + page.position());
            }
            // The new session must be on the device before any unit is rewritten: that is what makes
            // an index saved earlier stale even if the run crashes right after its first write.
            channel.force(true);
        }
    }
}
