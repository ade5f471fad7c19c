package tierlab.engine.persist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.engine.persist.IndexFile.ExpectedGeometry;
import tierlab.engine.persist.IndexFile.Loaded;
import tierlab.engine.persist.IndexFile.Missing;
import tierlab.engine.persist.IndexFile.ReadResult;
import tierlab.engine.persist.IndexFile.RejectKind;
import tierlab.engine.persist.IndexFile.Rejected;
import tierlab.model.geometry.BlockKey;
import tierlab.model.l2.L2Index;
import tierlab.model.l2.L2Ring;
import tierlab.model.l2.L2Snapshot;

class IndexFileTest {

    private static final int SLOTS = 64;
    private static final long LANE_BYTES = 147_456L * 16;
    private static final int TP = 2;
    private static final ExpectedGeometry GEOMETRY = new ExpectedGeometry(SLOTS, LANE_BYTES, TP);

    @TempDir
    Path dir;

    /**
     * A consistent snapshot: a skip run at the end of the ring, three live runs, entries chained
     * parent to child on most (not all) of their slots, random 128-bit keys.
     */
    static L2Snapshot sampleSnapshot(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<L2Ring.Run> runs = List.of(
                new L2Ring.Run(7, 20, 30, false),
                new L2Ring.Run(8, 50, 14, true),
                new L2Ring.Run(9, 0, 12, false),
                new L2Ring.Run(10, 12, 5, false));
        List<L2Index.EntryRecord> entries = new ArrayList<>();
        for (L2Ring.Run run : runs) {
            if (run.skip()) {
                continue;
            }
            BlockKey parent = BlockKey.ROOT;
            for (int slot = run.firstSlot(); slot < run.endSlot(); slot++) {
                if (slot % 5 == 3) {
                    continue; // an uncommitted slot: owned by the run, no visible entry
                }
                BlockKey key = new BlockKey(random.nextLong(), random.nextLong());
                entries.add(new L2Index.EntryRecord(key, parent, slot, 16, run.runId(), 1 + random.nextInt(1000)));
                parent = key;
            }
        }
        entries.sort(java.util.Comparator.comparingInt(L2Index.EntryRecord::slot));
        return new L2Snapshot(SLOTS, LANE_BYTES, TP, 17, 11, runs, entries);
    }

    static final L2Identity.Stamp STAMP = new L2Identity.Stamp(new java.util.UUID(1, 2), new java.util.UUID(3, 4));

    /** The snapshot as an index file holds it: with a stamp and a distinct checksum per unit. */
    static IndexFile.Contents contents(L2Snapshot snapshot) {
        int[] crcs = new int[snapshot.entries().size() * snapshot.tp()];
        for (int i = 0; i < crcs.length; i++) {
            crcs[i] = 0x5EED0000 + i * 7919;
        }
        return new IndexFile.Contents(snapshot, STAMP, crcs);
    }

    private Path indexPath() {
        return IndexFile.besideL2(dir.resolve("l2.bin"));
    }

    private static Rejected assertRejected(ReadResult result, RejectKind kind, String... fragments) {
        Rejected rejected = assertInstanceOf(Rejected.class, result, () -> "expected a rejection, got " + result);
        assertEquals(kind, rejected.kind(), rejected::message);
        String message = rejected.message();
        assertFalse(message.contains("\n"), "one line: " + message);
        assertTrue(message.contains(rejected.path().toString()), "names the file: " + message);
        assertTrue(message.endsWith("starting with a cold L2"), message);
        for (String fragment : fragments) {
            assertTrue(message.contains(fragment), () -> "'" + fragment + "' in: " + message);
        }
        return rejected;
    }

    private List<Path> filesInDir() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.sorted().toList();
        }
    }

    @Test
    void roundTripKeepsEveryField() throws IOException {
        L2Snapshot snapshot = sampleSnapshot(1);
        Path path = indexPath();
        assertEquals(dir.resolve("l2.bin.index").toAbsolutePath(), path);
        IndexFile.write(path, contents(snapshot));
        assertEquals(IndexFile.expectedFileBytes(snapshot.runsOldestFirst().size(), snapshot.entries().size(), TP), Files.size(path));
        Loaded loaded = assertInstanceOf(Loaded.class, IndexFile.read(path, GEOMETRY));
        assertEquals(snapshot, loaded.snapshot());
        assertEquals(contents(snapshot), loaded.contents(), "the stamp and every unit checksum survive");
        assertTrue(loaded.snapshot().runsOldestFirst().get(1).skip(), "the skip flag survives");
        assertArrayEquals(IndexFile.encode(contents(snapshot)), Files.readAllBytes(path), "write puts exactly encode's bytes");
    }

    @Test
    void emptySnapshotRoundTrips() throws IOException {
        L2Snapshot empty = new L2Snapshot(SLOTS, LANE_BYTES, TP, 0, 1, List.of(), List.of());
        IndexFile.write(indexPath(), contents(empty));
        assertEquals(IndexFile.HEADER_BYTES + IndexFile.CRC_BYTES, Files.size(indexPath()));
        assertEquals(empty, assertInstanceOf(Loaded.class, IndexFile.read(indexPath(), GEOMETRY)).snapshot());
    }

    @Test
    void headerLayoutIsTheDocumentedOne() {
        L2Snapshot snapshot = sampleSnapshot(2);
        ByteBuffer bytes = ByteBuffer.wrap(IndexFile.encode(contents(snapshot)));
        byte[] magic = new byte[8];
        bytes.get(magic);
        assertArrayEquals("TLL2IDX\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII), magic);
        assertEquals(3, bytes.getInt(8));
        assertEquals(SLOTS, bytes.getInt(12));
        assertEquals(LANE_BYTES, bytes.getLong(16));
        assertEquals(TP, bytes.getInt(24));
        assertEquals(17, bytes.getInt(28));
        assertEquals(11, bytes.getLong(32));
        assertEquals(snapshot.runsOldestFirst().size(), bytes.getInt(40));
        assertEquals(snapshot.entries().size(), bytes.getInt(44));
        assertEquals(1, bytes.getLong(48), "the L2 file id");
        assertEquals(2, bytes.getLong(56));
        assertEquals(3, bytes.getLong(64), "the L2 writing session");
        assertEquals(4, bytes.getLong(72));
        assertEquals(7, bytes.getLong(80), "first run's id right after the header");
        int firstEntry = IndexFile.HEADER_BYTES + snapshot.runsOldestFirst().size() * IndexFile.RUN_BYTES;
        assertEquals(snapshot.entries().getFirst().key().hi(), bytes.getLong(firstEntry));
        assertEquals(0x5EED0000, bytes.getInt(firstEntry + IndexFile.ENTRY_FIXED_BYTES), "lane 0's unit checksum");
        assertEquals(0x5EED0000 + 7919, bytes.getInt(firstEntry + IndexFile.ENTRY_FIXED_BYTES + 4), "lane 1's");
        int crcAt = bytes.capacity() - 4;
        assertEquals(IndexFile.crcOf(bytes.array(), crcAt), bytes.getInt(crcAt));
    }

    @Test
    void truncatedFilesAreRejectedAsTorn() throws IOException {
        byte[] whole = IndexFile.encode(contents(sampleSnapshot(3)));
        int firstEntry = IndexFile.HEADER_BYTES + 4 * IndexFile.RUN_BYTES;
        int[] lengths = {0, 1, 7, 8, 12, 47, 48, 51, 52, 60, firstEntry, firstEntry + 30, whole.length / 2,
                whole.length - IndexFile.CRC_BYTES, whole.length - 1};
        for (int length : lengths) {
            Path path = dir.resolve("cut-" + length + ".index");
            Files.write(path, java.util.Arrays.copyOf(whole, length));
            Rejected rejected = assertRejected(IndexFile.read(path, GEOMETRY), RejectKind.TORN, "truncated");
            assertTrue(rejected.reason().contains(length + " bytes"), rejected.reason());
        }
    }

    @Test
    void trailingBytesAreRejected() throws IOException {
        byte[] whole = IndexFile.encode(contents(sampleSnapshot(3)));
        Path path = indexPath();
        Files.write(path, java.util.Arrays.copyOf(whole, whole.length + 10));
        assertRejected(IndexFile.read(path, GEOMETRY), RejectKind.TORN, "trailing bytes");
    }

    @Test
    void everySingleFlippedByteIsRejected() throws IOException {
        byte[] whole = IndexFile.encode(contents(sampleSnapshot(4)));
        Path path = indexPath();
        for (int position = 0; position < whole.length; position++) {
            byte[] damaged = whole.clone();
            damaged[position] ^= (byte) (1 << (position % 8));
            Files.write(path, damaged);
            ReadResult result = IndexFile.read(path, GEOMETRY);
            Rejected rejected = assertInstanceOf(Rejected.class, result, "flip at byte " + position + " was loaded");
            // Magic and version are checked before the CRC; counts before it too (the size no longer fits).
            String what = "flip at byte " + position + ": " + rejected.message();
            if (position < 12) {
                assertEquals(RejectKind.FOREIGN, rejected.kind(), what);
            } else if ((position >= 40 && position < 48) || (position >= 24 && position < 28)) {
                // A count or tp (entries are 56 + 4 * tp bytes) no longer matches the size (torn),
                // or turned negative (corrupt).
                assertTrue(rejected.kind() == RejectKind.TORN || rejected.kind() == RejectKind.CORRUPT, what);
            } else {
                assertEquals(RejectKind.CORRUPT, rejected.kind(), what);
            }
        }
        // A flip in the body names the checksum.
        byte[] damaged = whole.clone();
        damaged[IndexFile.HEADER_BYTES + 100] ^= 0x10;
        Files.write(path, damaged);
        assertRejected(IndexFile.read(path, GEOMETRY), RejectKind.CORRUPT, "CRC32C mismatch");
    }

    @Test
    void foreignFilesAreRejected() throws IOException {
        Path text = dir.resolve("notes.index");
        Files.writeString(text, "this is some other program's file, long enough to have a header and more bytes\n");
        assertRejected(IndexFile.read(text, GEOMETRY), RejectKind.FOREIGN, "magic");

        Path tiny = dir.resolve("tiny.index");
        Files.writeString(tiny, "{}");
        assertRejected(IndexFile.read(tiny, GEOMETRY), RejectKind.FOREIGN, "magic");

        byte[] future = IndexFile.encode(contents(sampleSnapshot(5)));
        ByteBuffer.wrap(future).putInt(8, 4);
        Path newer = dir.resolve("newer.index");
        Files.write(newer, future);
        assertRejected(IndexFile.read(newer, GEOMETRY), RejectKind.FOREIGN, "format version 4", "reads version 3");

        byte[] older = IndexFile.encode(contents(sampleSnapshot(5)));
        ByteBuffer.wrap(older).putInt(8, 1);
        Path v1 = dir.resolve("v1.index");
        Files.write(v1, older);
        assertRejected(IndexFile.read(v1, GEOMETRY), RejectKind.FOREIGN, "format version 1", "reads version 3");

        // Version 2's unit checksums covered bytes alone, not the keys they vouch for.
        byte[] bytesOnly = IndexFile.encode(contents(sampleSnapshot(5)));
        ByteBuffer.wrap(bytesOnly).putInt(8, 2);
        Path v2 = dir.resolve("v2.index");
        Files.write(v2, bytesOnly);
        assertRejected(IndexFile.read(v2, GEOMETRY), RejectKind.FOREIGN, "format version 2", "reads version 3");
    }

    @Test
    void anotherGeometryIsRejectedNamingBoth() throws IOException {
        Path path = indexPath();
        IndexFile.write(path, contents(sampleSnapshot(6)));
        assertRejected(IndexFile.read(path, new ExpectedGeometry(128, LANE_BYTES, TP)), RejectKind.GEOMETRY,
                "64 slots", "configured for 128 slots");
        assertRejected(IndexFile.read(path, new ExpectedGeometry(SLOTS, LANE_BYTES * 2, TP)), RejectKind.GEOMETRY,
                LANE_BYTES + " B lanes", (LANE_BYTES * 2) + " B lanes");
        assertRejected(IndexFile.read(path, new ExpectedGeometry(SLOTS, LANE_BYTES, 4)), RejectKind.GEOMETRY, "tp=2", "tp=4");
        assertInstanceOf(Loaded.class, IndexFile.read(path, GEOMETRY));
    }

    @Test
    void missingFileIsMissing() {
        Missing missing = assertInstanceOf(Missing.class, IndexFile.read(indexPath(), GEOMETRY));
        assertTrue(missing.message().contains(indexPath().toString()), missing.message());
    }

    @Test
    void checksummedButSelfContradictingSnapshotIsRejected() throws IOException {
        L2Snapshot good = sampleSnapshot(7);
        Path path = indexPath();

        // An entry whose run does not own its slot (slot 55 lies in the skip run 8).
        List<L2Index.EntryRecord> entries = new ArrayList<>(good.entries());
        L2Index.EntryRecord first = entries.getFirst();
        entries.add(new L2Index.EntryRecord(new BlockKey(1, 2), first.key(), 55, 16, first.runId(), 1));
        Files.write(path, IndexFile.encode(contents(new L2Snapshot(SLOTS, LANE_BYTES, TP, 17, 11, good.runsOldestFirst(), entries))));
        assertRejected(IndexFile.read(path, GEOMETRY), RejectKind.INCONSISTENT, "contradicts itself");

        // An entry outside the ring.
        entries.set(entries.size() - 1, new L2Index.EntryRecord(new BlockKey(1, 2), first.key(), 99, 16, first.runId(), 1));
        Files.write(path, IndexFile.encode(contents(new L2Snapshot(SLOTS, LANE_BYTES, TP, 17, 11, good.runsOldestFirst(), entries))));
        assertRejected(IndexFile.read(path, GEOMETRY), RejectKind.INCONSISTENT, "slot 99");

        // Overlapping runs, and a run past the end.
        List<L2Ring.Run> overlapping = new ArrayList<>(good.runsOldestFirst());
        overlapping.add(new L2Ring.Run(11, 40, 5, false));
        Files.write(path, IndexFile.encode(contents(new L2Snapshot(SLOTS, LANE_BYTES, TP, 17, 12, overlapping, good.entries()))));
        assertRejected(IndexFile.read(path, GEOMETRY), RejectKind.INCONSISTENT, "overlap");
        List<L2Ring.Run> outside = List.of(new L2Ring.Run(1, 60, 10, false));
        Files.write(path, IndexFile.encode(contents(new L2Snapshot(SLOTS, LANE_BYTES, TP, 0, 2, outside, List.of()))));
        assertRejected(IndexFile.read(path, GEOMETRY), RejectKind.INCONSISTENT, "outside the ring");
    }

    @Test
    void writeLeavesOnlyTheIndexFile() throws IOException {
        Path path = indexPath();
        IndexFile.write(path, contents(sampleSnapshot(8)));
        IndexFile.write(path, contents(sampleSnapshot(9)));
        assertEquals(List.of(path), filesInDir());
        assertEquals(sampleSnapshot(9), assertInstanceOf(Loaded.class, IndexFile.read(path, GEOMETRY)).snapshot());
    }

    /** Fails the write once {@code limit} bytes went through, as a full disk or an I/O error would. */
    private static OutputStream failingAfter(OutputStream out, long limit) {
        return new FilterOutputStream(out) {
            long written;

            @Override
            public void write(int b) throws IOException {
                if (written++ >= limit) {
                    throw new IOException("injected failure after " + limit + " bytes");
                }
                out.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                for (int i = 0; i < len; i++) {
                    write(b[off + i]);
                }
            }
        };
    }

    @Test
    void failedWriteKeepsThePreviousIndexAndNoTempFile() throws IOException {
        Path path = indexPath();
        L2Snapshot previous = sampleSnapshot(10);
        IndexFile.write(path, contents(previous));
        byte[] previousBytes = Files.readAllBytes(path);
        long newSize = IndexFile.encode(contents(sampleSnapshot(11))).length;
        for (long limit : new long[] {0, 1, 47, 48, 200, newSize / 2, newSize - 4, newSize - 1}) {
            IOException failure = assertThrows(IOException.class,
                    () -> IndexFile.write(path, contents(sampleSnapshot(11)), out -> failingAfter(out, limit)));
            assertTrue(failure.getMessage().contains("injected"), failure.getMessage());
            assertArrayEquals(previousBytes, Files.readAllBytes(path), "the previous index is untouched (limit " + limit + ")");
            assertEquals(List.of(path), filesInDir(), "no temp file left (limit " + limit + ")");
            assertEquals(previous, assertInstanceOf(Loaded.class, IndexFile.read(path, GEOMETRY)).snapshot());
        }
    }

    @Test
    void failedFirstWriteLeavesNothing() throws IOException {
        Path path = indexPath();
        assertThrows(IOException.class, () -> IndexFile.write(path, contents(sampleSnapshot(12)), out -> failingAfter(out, 100)));
        assertEquals(List.of(), filesInDir());
        assertInstanceOf(Missing.class, IndexFile.read(path, GEOMETRY));
    }

    @Test
    void staleTempFileFromACrashIsReplaced() throws IOException {
        Path path = indexPath();
        Path temp = IndexFile.tempPathFor(path);
        Files.write(temp, new byte[5000]); // longer than the new index: must be truncated, not overwritten in part
        IndexFile.write(path, contents(sampleSnapshot(13)));
        assertEquals(List.of(path), filesInDir());
        assertEquals(sampleSnapshot(13), assertInstanceOf(Loaded.class, IndexFile.read(path, GEOMETRY)).snapshot());
    }
}
