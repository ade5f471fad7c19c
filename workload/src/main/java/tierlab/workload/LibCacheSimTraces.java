package tierlab.workload;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import tierlab.model.policy.ReplacementPolicy;

/**
 * The two block formats of libCacheSim (github.com/1a1a11a/libCacheSim) tierlab reads, so that a
 * reference stream can go between tierlab and that simulator. Each record is one reference to one
 * cache object; tierlab replays it as a one-block request (object sizes are read and checked but a
 * replay counts objects, as libCacheSim's {@code --ignore-obj-size 1} does).
 *
 * <ul>
 *   <li>{@code oracle-general}: libCacheSim's {@code oracleGeneral} binary format
 *       ({@code libCacheSim/traceReader/customizedReader/oracle/oracleGeneralBin.h}): packed,
 *       little-endian 24-byte records {@code uint32 clock_time, uint64 obj_id, uint32 obj_size,
 *       int64 next_access_vtime}. {@code next_access_vtime} is the future information Belady needs;
 *       tierlab computes that from the stream itself, so it is not used. The file must be
 *       uncompressed (libCacheSim also reads {@code .zst}; run {@code zstd -d} first).</li>
 *   <li>{@code lcs-csv}: libCacheSim's csv reader ({@code libCacheSim/traceReader/generalReader/csv.c})
 *       with the layout {@code time-col=1,obj-id-col=2,obj-size-col=3,delimiter=,,has-header=true,
 *       obj-id-is-num=1}: the header {@code clock_time,obj_id,obj_size}, then one record per line of
 *       three unsigned integers (time in seconds, the id, the size in bytes).</li>
 * </ul>
 *
 * Refusals name the file and the record (binary: its 1-based number and byte offset) or line (csv).
 */
public final class LibCacheSimTraces {

    /** Bytes per oracleGeneral record. */
    public static final int ORACLE_GENERAL_RECORD_BYTES = 24;

    /** The csv layout's header line. */
    public static final String CSV_HEADER = "clock_time,obj_id,obj_size";

    private LibCacheSimTraces() {
    }

    /** Reads an oracleGeneral file whole. */
    public static RequestTrace readOracleGeneral(Path file) {
        TraceFiles.checkReadable(file);
        long bytes;
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = Files.size(file);
            head = in.readNBytes(8);
        } catch (IOException e) {
            throw new TraceException(file, "cannot read trace file " + file + ": " + e.getMessage(), e);
        }
        String compressed = BinaryContent.describeStart(head);
        if (compressed != null) {
            throw new TraceException(file, file + ": " + compressed.replace(", not text", "")
                    + "; an oracleGeneral trace is uncompressed 24-byte records");
        }
        if (bytes == 0) {
            throw new TraceException(file, file + ": the trace holds no requests");
        }
        if (bytes % ORACLE_GENERAL_RECORD_BYTES != 0) {
            long whole = bytes / ORACLE_GENERAL_RECORD_BYTES;
            throw new TraceException(file, file + ": " + bytes + " bytes is not a whole number of "
                    + ORACLE_GENERAL_RECORD_BYTES + "-byte oracleGeneral records (record " + (whole + 1) + " at byte "
                    + whole * ORACLE_GENERAL_RECORD_BYTES + " is cut short; a truncated file, or another format)");
        }
        long records = bytes / ORACLE_GENERAL_RECORD_BYTES;
        if (records > RequestTrace.MAX_REFERENCES) {
            throw new TraceException(file, file + ": " + records + " records are too many to replay at once");
        }
        List<TraceRequest> requests = new ArrayList<>((int) records);
        byte[] record = new byte[ORACLE_GENERAL_RECORD_BYTES];
        ByteBuffer fields = ByteBuffer.wrap(record).order(ByteOrder.LITTLE_ENDIAN);
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            for (long number = 1; number <= records; number++) {
                if (in.readNBytes(record, 0, record.length) != record.length) {
                    throw new TraceException(file, file + ": the file ended at record " + number + " (it changed while read?)");
                }
                long clockTimeS = Integer.toUnsignedLong(fields.getInt(0));
                long objectId = fields.getLong(4);
                if (objectId == ReplacementPolicy.NO_VICTIM) {
                    throw new TraceFormatException(file, number, "record " + number + " (byte "
                            + (number - 1) * ORACLE_GENERAL_RECORD_BYTES + "): obj_id " + Long.toUnsignedString(objectId)
                            + " is reserved and cannot be a block id");
                }
                requests.add(new TraceRequest(number, clockTimeS * 1_000_000_000L, 0, 0, new long[] {objectId}));
            }
        } catch (IOException e) {
            throw new TraceException(file, "cannot read trace file " + file + ": " + e.getMessage(), e);
        }
        return new RequestTrace(file, "oracle-general", 0, requests);
    }

    /** Reads a csv trace in the layout above whole. */
    public static RequestTrace readCsv(Path file) {
        TraceFiles.checkReadable(file);
        MooncakeTraceReader.binaryCheck(file, 8, "a libCacheSim csv trace is text");
        List<TraceRequest> requests = new ArrayList<>();
        long lineNumber = 0;
        try (BufferedReader reader = TextFiles.newReader(file)) {
            String line;
            while ((line = reader.readLine()) != null) {
                lineNumber++;
                if (lineNumber == 1) {
                    if (!line.strip().equals(CSV_HEADER)) {
                        throw new TraceFormatException(file, 1, "expected the header " + CSV_HEADER
                                + " (libCacheSim: -t \"time-col=1,obj-id-col=2,obj-size-col=3,has-header=true\"), found '"
                                + abbreviate(line) + "'");
                    }
                    continue;
                }
                if (line.isBlank()) {
                    continue;
                }
                if (requests.size() >= RequestTrace.MAX_REFERENCES) {
                    throw new TraceException(file, file + ": more than " + RequestTrace.MAX_REFERENCES
                            + " records are too many to replay at once");
                }
                requests.add(csvRecord(file, lineNumber, line));
            }
        } catch (CharacterCodingException e) {
            MooncakeTraceReader.binaryCheck(file, Long.MAX_VALUE, "a libCacheSim csv trace is text");
            throw new TraceException(file, file + ": not UTF-8 text (near line " + (lineNumber + 1) + ")", e);
        } catch (IOException e) {
            throw new TraceException(file, "cannot read trace file " + file + ": " + e.getMessage(), e);
        }
        if (requests.isEmpty()) {
            throw new TraceException(file, file + ": the trace holds no requests");
        }
        return new RequestTrace(file, "lcs-csv", 0, requests);
    }

    private static TraceRequest csvRecord(Path file, long lineNumber, String line) {
        String[] cells = line.split(",", -1);
        if (cells.length != 3) {
            throw new TraceFormatException(file, lineNumber, "expected 3 fields (" + CSV_HEADER + "), found " + cells.length);
        }
        String[] names = CSV_HEADER.split(",");
        long[] values = new long[3];
        for (int index = 0; index < 3; index++) {
            String cell = cells[index].strip();
            try {
                values[index] = Long.parseUnsignedLong(cell);
            } catch (NumberFormatException e) {
                throw new TraceFormatException(file, lineNumber, names[index] + " must be an unsigned integer, found '"
                        + abbreviate(cell) + "'");
            }
        }
        if (Long.compareUnsigned(values[0], 0xFFFF_FFFFL) > 0 || Long.compareUnsigned(values[2], 0xFFFF_FFFFL) > 0) {
            // libCacheSim holds both in 32 bits (oracleGeneral's fields; csv.c asserts ts < UINT32_MAX).
            throw new TraceFormatException(file, lineNumber, (Long.compareUnsigned(values[0], 0xFFFF_FFFFL) > 0
                    ? "clock_time " + Long.toUnsignedString(values[0]) : "obj_size " + Long.toUnsignedString(values[2]))
                    + " does not fit in 32 bits, as libCacheSim keeps it");
        }
        if (values[1] == ReplacementPolicy.NO_VICTIM) {
            throw new TraceFormatException(file, lineNumber, "obj_id " + Long.toUnsignedString(values[1])
                    + " is reserved and cannot be a block id");
        }
        return new TraceRequest(lineNumber, values[0] * 1_000_000_000L, 0, 0, new long[] {values[1]});
    }

    private static String abbreviate(String text) {
        return text.length() <= 40 ? text : text.substring(0, 37) + "...";
    }
}
