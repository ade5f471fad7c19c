package tierlab.engine.persist;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import java.util.zip.CRC32C;
import java.util.zip.CheckedOutputStream;
import tierlab.model.geometry.BlockKey;
import tierlab.model.l2.L2Index;
import tierlab.model.l2.L2Ring;
import tierlab.model.l2.L2Snapshot;

/**
 * The L2 index file: an {@link L2Snapshot} written beside the L2 file on clean shutdown and read
 * back at start, so a warm restart keeps the L2 cache. It names the L2 file and the writing
 * session it describes ({@link L2Identity.Stamp}) and records a CRC32C of every unit it keeps
 * ({@link UnitChecksums}), so a caller can prove it still describes the L2 file beside it.
 *
 * <h2>Format, version 3</h2>
 * All integers are big-endian (the order of {@link java.io.DataOutput}); offsets in bytes.
 * <pre>
 *   0  +------------------------------------------+
 *      | magic  "TLL2IDX\n"  54 4C 4C 32 49 44 58 0A |  8 bytes
 *   8  | formatVersion              u32  = 3         |
 *  12  | slotCount                  s32              |  geometry: must equal the
 *  16  | laneBytes                  s64              |  running configuration's,
 *  24  | tp                         s32              |  else the file is rejected
 *  28  | head                       s32              |
 *  32  | nextRunId                  s64              |
 *  40  | runCount                   s32              |
 *  44  | entryCount                 s32              |
 *  48  | l2 fileId   msb s64 | lsb s64              |  the L2 file's identity trailer
 *  64  | l2 session  msb s64 | lsb s64              |  as it was when this was saved
 *  80  +------------------------------------------+
 *      | runs, oldest first, RUN_BYTES = 20 each:     |
 *      |   runId s64 | firstSlot s32 | slotCount s32 | flags u32 (bit 0 = skip) |
 *      +------------------------------------------+
 *      | entries, 56 + 4 * tp bytes each:             |
 *      |   key.hi s64 | key.lo s64 | parent.hi s64 | parent.lo s64 |
 *      |   slot s32 | tokenCount s32 | runId s64 | version s64 |
 *      |   tp × CRC32C of (key, lane, unit bytes) u32, lane 0 first |
 *      +------------------------------------------+
 *      | CRC32C of every byte above       u32        |  4 bytes, last in the file
 *      +------------------------------------------+
 *   total = 80 + 20 * runCount + (56 + 4 * tp) * entryCount + 4
 * </pre>
 * Version 1 (no identity, no unit checksums) and version 2 (unit checksums of the bytes alone,
 * which do not say which key a slot holds) are rejected by their version: neither can prove which
 * keys it describes. A writer never reuses a version number for another layout. Keys are the model's 128-bit {@link BlockKey}s as they are.
 *
 * <h2>Atomic replacement</h2>
 * {@link #write} never leaves a half file at the index path: it writes {@code <index>.tmp} in the
 * same directory, forces it to the device, renames it over the index path with an atomic move,
 * and forces the directory so the rename itself survives a power cut. A failure on the way deletes
 * the temporary file and leaves the previous index (or none) in place. A crash on the way can leave
 * {@code <index>.tmp} behind; the next write truncates and reuses it, and {@link #read} never looks
 * at it. One writer per index path (the runtime that owns the L2 file).
 *
 * <h2>Reading</h2>
 * {@link #read} never throws for a bad file: it answers {@link Loaded}, {@link Missing} or
 * {@link Rejected} with a one-line reason naming the file and what is wrong, in this order of
 * checks: too short for a header, magic, version, size against the header's counts (a torn or
 * truncated file), CRC32C, geometry against the running configuration, and finally whether the
 * snapshot is consistent with itself (the model's own ring and index restore it and check their
 * invariants). A caller that gets anything but {@code Loaded} starts cold.
 */
public final class IndexFile {

    /** "TLL2IDX\n": tierlab L2 index; the newline catches text-mode mangling. */
    static final byte[] MAGIC = {'T', 'L', 'L', '2', 'I', 'D', 'X', '\n'};
    public static final int FORMAT_VERSION = 3;
    static final int HEADER_BYTES = 80;
    static final int RUN_BYTES = 20;
    /** Entry bytes before its tp unit checksums. */
    static final int ENTRY_FIXED_BYTES = 56;
    static final int CRC_BYTES = 4;
    static final String INDEX_SUFFIX = ".index";
    static final String TEMP_SUFFIX = ".tmp";
    /** Files larger than this are refused without reading (a 2^31-slot index would still be far smaller). */
    static final long MAX_FILE_BYTES = Integer.MAX_VALUE - 8;

    private static final int RUN_FLAG_SKIP = 1;

    private IndexFile() {}

    /** The configuration a snapshot must match to be loaded: the L2 file's slots, the lane size and tp. */
    public record ExpectedGeometry(int slotCount, long laneBytes, int tp) {
        public ExpectedGeometry {
            if (slotCount <= 0 || laneBytes <= 0 || tp <= 0) {
                throw new IllegalArgumentException("expected geometry needs positive slotCount, laneBytes and tp, was "
                        + slotCount + ", " + laneBytes + ", " + tp);
            }
        }

        public static ExpectedGeometry of(L2Snapshot snapshot) {
            return new ExpectedGeometry(snapshot.slotCount(), snapshot.laneBytes(), snapshot.tp());
        }

        @Override
        public String toString() {
            return slotCount + " slots of " + laneBytes + " B lanes with tp=" + tp;
        }
    }

    /** An index file's contents: snapshot, L2 file and session, each unit's CRC32C (entry-major, {@code entries × tp}). */
    public record Contents(L2Snapshot snapshot, L2Identity.Stamp stamp, int[] unitCrc32c) {
        public Contents {
            Objects.requireNonNull(snapshot, "snapshot");
            Objects.requireNonNull(stamp, "stamp");
            if (unitCrc32c.length != (long) snapshot.entries().size() * snapshot.tp()) {
                throw new IllegalArgumentException("need " + snapshot.entries().size() + " × tp=" + snapshot.tp()
                        + " unit checksums, got " + unitCrc32c.length);
            }
            unitCrc32c = unitCrc32c.clone();
        }

        @Override
        public int[] unitCrc32c() {
            return unitCrc32c.clone();
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Contents that && snapshot.equals(that.snapshot) && stamp.equals(that.stamp)
                    && Arrays.equals(unitCrc32c, that.unitCrc32c);
        }

        @Override
        public int hashCode() {
            return Objects.hash(snapshot, stamp, Arrays.hashCode(unitCrc32c));
        }

        @Override
        public String toString() {
            return "Contents[" + snapshot.entries().size() + " keys, " + stamp + "]";
        }
    }

    /** What {@link #read} found. */
    public sealed interface ReadResult permits Loaded, Missing, Rejected {}

    /** The file was whole, ours, for this geometry and self-consistent. */
    public record Loaded(Path path, Contents contents) implements ReadResult {
        public L2Snapshot snapshot() {
            return contents.snapshot();
        }
    }

    /** There is no index file: a first start, or a shutdown that was not clean. */
    public record Missing(Path path) implements ReadResult {
        public String message() {
            return "L2 index " + path + " does not exist; starting with a cold L2";
        }
    }

    /** Why a file was refused, for tests and counters; {@link Rejected#message()} is the sentence for people. */
    public enum RejectKind {
        /** Too short, or shorter or longer than its header says: a torn or truncated write. */
        TORN,
        /** Bytes changed after writing: the CRC32C does not match. */
        CORRUPT,
        /** Not an index file of this format (magic), or of another format version. */
        FOREIGN,
        /** An index for another slot count, lane size or tp. */
        GEOMETRY,
        /** Whole and checksummed, but the snapshot contradicts itself (a writer bug). */
        INCONSISTENT,
        /** The file exists but could not be read (permissions, I/O error). */
        UNREADABLE
    }

    /** The file exists and was refused; the caller starts cold. */
    public record Rejected(Path path, RejectKind kind, String reason) implements ReadResult {
        /** One line: the file, what is wrong, and what happens next. */
        public String message() {
            return "L2 index " + path + " rejected (" + kind.name().toLowerCase(java.util.Locale.ROOT) + "): " + reason
                    + "; starting with a cold L2";
        }
    }

    /** Where the index of L2 file {@code l2Path} lives by default: {@code <l2Path>.index} in the same directory. */
    public static Path besideL2(Path l2Path) {
        Path absolute = l2Path.toAbsolutePath();
        return absolute.resolveSibling(absolute.getFileName() + INDEX_SUFFIX);
    }

    /** The temporary file that {@link #write} fills before renaming it to {@code indexPath}. */
    public static Path tempPathFor(Path indexPath) {
        Path absolute = indexPath.toAbsolutePath();
        return absolute.resolveSibling(absolute.getFileName() + TEMP_SUFFIX);
    }

    // ---- writing ----------------------------------------------------------------------------------

    /** The encoded file, CRC included: exactly what {@link #write} puts at the index path. */
    public static byte[] encode(Contents contents) {
        Objects.requireNonNull(contents, "contents");
        L2Snapshot snapshot = contents.snapshot();
        long size = expectedFileBytes(snapshot.runsOldestFirst().size(), snapshot.entries().size(), snapshot.tp());
        if (size > MAX_FILE_BYTES) {
            throw new IllegalArgumentException("the snapshot needs " + size + " bytes, more than the index format's "
                    + MAX_FILE_BYTES);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream((int) size);
        try {
            writeTo(bytes, contents);
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory failed", e);
        }
        return bytes.toByteArray();
    }

    /** Replaces the index at {@code indexPath} atomically; on an exception the old file stays and no temporary one. */
    public static void write(Path indexPath, Contents contents) throws IOException {
        write(indexPath, contents, UnaryOperator.identity());
    }

    /** {@link #write} through {@code streamWrapper}: tests fail part-way to check that no half file ever appears. */
    static void write(Path indexPath, Contents contents, UnaryOperator<OutputStream> streamWrapper) throws IOException {
        Objects.requireNonNull(indexPath, "indexPath");
        Objects.requireNonNull(contents, "contents");
        Path target = indexPath.toAbsolutePath();
        Path temp = tempPathFor(target);
        boolean moved = false;
        try {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                // Not closed through the stream: closing the wrapper would close the channel before force().
                OutputStream out = streamWrapper.apply(new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16));
                writeTo(out, contents);
                out.flush();
                channel.force(true);
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("cannot replace " + target + " atomically (" + e.getMessage()
                        + "); the index file must be on a file system with atomic rename", e);
            }
            moved = true;
            forceDirectory(target.getParent());
        } finally {
            if (!moved) {
                Files.deleteIfExists(temp);
            }
        }
    }

    private static void writeTo(OutputStream sink, Contents contents) throws IOException {
        L2Snapshot snapshot = contents.snapshot();
        int[] unitCrcs = contents.unitCrc32c;
        CRC32C crc = new CRC32C();
        DataOutputStream out = new DataOutputStream(new CheckedOutputStream(sink, crc));
        out.write(MAGIC);
        out.writeInt(FORMAT_VERSION);
        out.writeInt(snapshot.slotCount());
        out.writeLong(snapshot.laneBytes());
        out.writeInt(snapshot.tp());
        out.writeInt(snapshot.head());
        out.writeLong(snapshot.nextRunId());
        out.writeInt(snapshot.runsOldestFirst().size());
        out.writeInt(snapshot.entries().size());
        L2Identity.Stamp stamp = contents.stamp();
        out.writeLong(stamp.fileId().getMostSignificantBits());
        out.writeLong(stamp.fileId().getLeastSignificantBits());
        out.writeLong(stamp.session().getMostSignificantBits());
        out.writeLong(stamp.session().getLeastSignificantBits());
        for (L2Ring.Run run : snapshot.runsOldestFirst()) {
            out.writeLong(run.runId());
            out.writeInt(run.firstSlot());
            out.writeInt(run.slotCount());
            out.writeInt(run.skip() ? RUN_FLAG_SKIP : 0);
        }
        int unit = 0;
        for (L2Index.EntryRecord entry : snapshot.entries()) {
            out.writeLong(entry.key().hi());
            out.writeLong(entry.key().lo());
            out.writeLong(entry.parent().hi());
            out.writeLong(entry.parent().lo());
            out.writeInt(entry.slot());
            out.writeInt(entry.tokenCount());
            out.writeLong(entry.runId());
            out.writeLong(entry.version());
            for (int lane = 0; lane < snapshot.tp(); lane++) {
                out.writeInt(unitCrcs[unit++]);
            }
        }
        out.flush();
        // The CRC covers everything above and is not part of its own input.
        new DataOutputStream(sink).writeInt((int) crc.getValue());
        sink.flush();
    }

    /** Makes a rename in {@code directory} durable (Linux allows fsync on a directory opened read-only). */
    private static void forceDirectory(Path directory) throws IOException {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // Some file systems refuse fsync on directories (EINVAL); the rename is then as durable as they make it.
            if (!(e.getMessage() != null && e.getMessage().contains("Invalid argument"))) {
                throw e;
            }
        }
    }

    static long expectedFileBytes(long runCount, long entryCount, int tp) {
        return HEADER_BYTES + RUN_BYTES * runCount + (ENTRY_FIXED_BYTES + 4L * tp) * entryCount + CRC_BYTES;
    }

    // ---- reading ----------------------------------------------------------------------------------

    /** Reads and checks the index at {@code indexPath} against the running configuration {@code expected}. */
    public static ReadResult read(Path indexPath, ExpectedGeometry expected) {
        Objects.requireNonNull(indexPath, "indexPath");
        Objects.requireNonNull(expected, "expected");
        byte[] bytes;
        try {
            long size = Files.size(indexPath);
            if (size > MAX_FILE_BYTES) {
                return new Rejected(indexPath, RejectKind.FOREIGN, "it is " + size + " bytes, larger than any index of this format");
            }
            bytes = Files.readAllBytes(indexPath);
        } catch (NoSuchFileException e) {
            return new Missing(indexPath);
        } catch (AccessDeniedException e) {
            return new Rejected(indexPath, RejectKind.UNREADABLE, "permission denied");
        } catch (IOException e) {
            return new Rejected(indexPath, RejectKind.UNREADABLE, "reading failed: " + e);
        }
        return decode(indexPath, bytes, expected);
    }

    /**
     * The index at {@code indexPath} read for whatever geometry its own header names, or null when
     * it is missing, unreadable or not a whole index of this format: what a caller asks to learn
     * which L2 file an index names (its identity), before the run's geometry is known to match.
     */
    public static Loaded readForItsOwnGeometry(Path indexPath) {
        byte[] bytes;
        try {
            if (!Files.isRegularFile(indexPath) || Files.size(indexPath) > MAX_FILE_BYTES) {
                return null;
            }
            bytes = Files.readAllBytes(indexPath);
        } catch (IOException e) {
            return null;
        }
        if (bytes.length < HEADER_BYTES + CRC_BYTES) {
            return null;
        }
        ByteBuffer header = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        ExpectedGeometry own;
        try {
            own = new ExpectedGeometry(header.getInt(12), header.getLong(16), header.getInt(24));
        } catch (IllegalArgumentException e) {
            return null;
        }
        return decode(indexPath, bytes, own) instanceof Loaded loaded ? loaded : null;
    }

    /** {@link #read} on bytes already in memory; {@code path} is used in messages only. */
    public static ReadResult decode(Path path, byte[] bytes, ExpectedGeometry expected) {
        if (bytes.length < HEADER_BYTES + CRC_BYTES) {
            // Decide "foreign" over "torn" only when even the magic's prefix is wrong.
            int compared = Math.min(bytes.length, MAGIC.length);
            if (!Arrays.equals(bytes, 0, compared, MAGIC, 0, compared)) {
                return new Rejected(path, RejectKind.FOREIGN, "it does not start with the index magic \"TLL2IDX\"");
            }
            return new Rejected(path, RejectKind.TORN, "it is " + bytes.length + " bytes, shorter than the "
                    + (HEADER_BYTES + CRC_BYTES) + "-byte header and checksum (truncated)");
        }
        if (!Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            return new Rejected(path, RejectKind.FOREIGN, "it does not start with the index magic \"TLL2IDX\" (not a tierlab L2 index)");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        in.position(MAGIC.length);
        int version = in.getInt();
        if (version != FORMAT_VERSION) {
            return new Rejected(path, RejectKind.FOREIGN, "format version " + Integer.toUnsignedString(version)
                    + ", this build reads version " + FORMAT_VERSION);
        }
        int slotCount = in.getInt();
        long laneBytes = in.getLong();
        int tp = in.getInt();
        int head = in.getInt();
        long nextRunId = in.getLong();
        int runCount = in.getInt();
        int entryCount = in.getInt();
        L2Identity.Stamp stamp = new L2Identity.Stamp(new java.util.UUID(in.getLong(), in.getLong()),
                new java.util.UUID(in.getLong(), in.getLong()));
        if (runCount < 0 || entryCount < 0 || tp <= 0) {
            return new Rejected(path, RejectKind.CORRUPT, "its header has negative counts or tp (runs " + runCount
                    + ", entries " + entryCount + ", tp " + tp + "): a damaged header");
        }
        long expectedBytes = expectedFileBytes(runCount, entryCount, tp);
        if (bytes.length != expectedBytes) {
            return new Rejected(path, RejectKind.TORN, "it is " + bytes.length + " bytes, but its header describes "
                    + runCount + " runs and " + entryCount + " entries in " + expectedBytes + " bytes ("
                    + (bytes.length < expectedBytes ? "truncated" : "trailing bytes") + ", or a damaged header)");
        }
        int storedCrc = ByteBuffer.wrap(bytes, bytes.length - CRC_BYTES, CRC_BYTES).order(ByteOrder.BIG_ENDIAN).getInt();
        int actualCrc = crcOf(bytes, bytes.length - CRC_BYTES);
        if (storedCrc != actualCrc) {
            return new Rejected(path, RejectKind.CORRUPT, String.format("CRC32C mismatch: stored %08x, computed %08x "
                    + "(a torn or damaged file)", storedCrc, actualCrc));
        }
        if (slotCount != expected.slotCount() || laneBytes != expected.laneBytes() || tp != expected.tp()) {
            return new Rejected(path, RejectKind.GEOMETRY, "it is for " + slotCount + " slots of " + laneBytes
                    + " B lanes with tp=" + tp + ", but the L2 file is configured for " + expected);
        }
        List<L2Ring.Run> runs = new ArrayList<>(runCount);
        for (int i = 0; i < runCount; i++) {
            long runId = in.getLong();
            int firstSlot = in.getInt();
            int runSlots = in.getInt();
            int flags = in.getInt();
            if ((flags & ~RUN_FLAG_SKIP) != 0) {
                return new Rejected(path, RejectKind.INCONSISTENT, "run " + i + " has unknown flags 0x" + Integer.toHexString(flags));
            }
            runs.add(new L2Ring.Run(runId, firstSlot, runSlots, (flags & RUN_FLAG_SKIP) != 0));
        }
        List<L2Index.EntryRecord> entries = new ArrayList<>(entryCount);
        int[] unitCrcs = new int[entryCount * tp];
        for (int i = 0; i < entryCount; i++) {
            BlockKey key = new BlockKey(in.getLong(), in.getLong());
            BlockKey parent = new BlockKey(in.getLong(), in.getLong());
            entries.add(new L2Index.EntryRecord(key, parent, in.getInt(), in.getInt(), in.getLong(), in.getLong()));
            for (int lane = 0; lane < tp; lane++) {
                unitCrcs[i * tp + lane] = in.getInt();
            }
        }
        L2Snapshot snapshot = new L2Snapshot(slotCount, laneBytes, tp, head, nextRunId, runs, entries);
        String contradiction = selfCheck(snapshot);
        if (contradiction != null) {
            return new Rejected(path, RejectKind.INCONSISTENT, contradiction);
        }
        return new Loaded(path, new Contents(snapshot, stamp, unitCrcs));
    }

    static int crcOf(byte[] bytes, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, length);
        return (int) crc.getValue();
    }

    /**
     * Restores the snapshot into the model's own ring and index and runs their invariant checks:
     * a checksummed file from a buggy writer must not reach the store. Null when consistent.
     */
    private static String selfCheck(L2Snapshot snapshot) {
        if (snapshot.head() < 0 || snapshot.head() > snapshot.slotCount()) {
            return "ring head " + snapshot.head() + " is outside 0.." + snapshot.slotCount();
        }
        for (L2Ring.Run run : snapshot.runsOldestFirst()) {
            if (run.firstSlot() < 0 || run.slotCount() <= 0 || (long) run.firstSlot() + run.slotCount() > snapshot.slotCount()) {
                return "run " + run.runId() + " covers slots " + run.firstSlot() + " + " + run.slotCount()
                        + ", outside the ring of " + snapshot.slotCount() + " slots";
            }
        }
        for (L2Index.EntryRecord entry : snapshot.entries()) {
            if (entry.slot() < 0 || entry.slot() >= snapshot.slotCount()) {
                return "entry for key " + entry.key() + " names slot " + entry.slot() + ", outside 0.." + (snapshot.slotCount() - 1);
            }
        }
        try {
            L2Ring ring = L2Ring.restore(snapshot.slotCount(), snapshot.runsOldestFirst(), snapshot.head(), snapshot.nextRunId());
            L2Index index = new L2Index(snapshot.slotCount(), snapshot.tp());
            for (L2Index.EntryRecord entry : snapshot.entries()) {
                index.restoreVisible(entry);
            }
            index.checkInvariants(ring);
            return null;
        } catch (RuntimeException e) {
            return "the snapshot contradicts itself: " + e.getMessage();
        }
    }
}
