package tierlab.engine.live;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import tierlab.engine.PinnedArena;
import tierlab.model.io.IoOp;

/**
 * What a live run can still check when payload verification is off (CUDA with {@code verify}
 * false: nothing compares loaded bytes with their key's payload): the CRC32C of every L2 unit as
 * this run wrote it, taken from the L1 slice the write read, against the CRC32C of what each later
 * L2 read of that unit put into L1. A lost, torn or misdirected write or read, or a unit changed
 * under the run, is then counted as a mismatch and fails the run like a payload mismatch.
 *
 * <p>Units this run did not write (a warm start's) have no checksum here until the run rewrites
 * them: the warm start checked them against the index's checksums when it opened the file.
 * Model thread only.
 */
final class L2ReadChecksums {

    private static final int EXAMPLES = 8;

    private final PinnedArena l1;
    private final long laneBytes;
    /** CRC32C by the L2 byte offset of a unit this run wrote (a multiple of laneBytes). */
    private final Map<Long, Integer> byUnit = new HashMap<>();
    private final List<String> examples = new ArrayList<>();
    private long checked;
    private long mismatches;

    L2ReadChecksums(PinnedArena l1, long laneBytes) {
        this.l1 = l1;
        this.laneBytes = laneBytes;
    }

    /** A storage operation completed: a write records its units' checksums, a read is checked against them. */
    void completed(IoOp op, boolean succeeded) {
        switch (op) {
            case IoOp.L2Write write -> wrote(write, succeeded);
            case IoOp.L2Read read -> {
                if (succeeded) {
                    read(read);
                }
            }
            default -> { }
        }
    }

    private void wrote(IoOp.L2Write write, boolean succeeded) {
        for (long unit = firstUnit(write.l2Offset()); unit + laneBytes <= write.l2Offset() + write.lengthBytes(); unit += laneBytes) {
            if (succeeded) {
                byUnit.put(unit, crcOf(write.l1Offset() + (unit - write.l2Offset())));
            } else {
                // A failed write leaves the unit's bytes unknown.
                byUnit.remove(unit);
            }
        }
    }

    private void read(IoOp.L2Read read) {
        for (long unit = firstUnit(read.l2Offset()); unit + laneBytes <= read.l2Offset() + read.lengthBytes(); unit += laneBytes) {
            Integer expected = byUnit.get(unit);
            if (expected == null) {
                continue;
            }
            checked++;
            long l1Offset = read.l1Offset() + (unit - read.l2Offset());
            int actual = crcOf(l1Offset);
            if (actual != expected) {
                mismatches++;
                if (examples.size() < EXAMPLES) {
                    examples.add(String.format("L2 read of the unit at byte %d returned CRC32C %08x, written as %08x",
                            unit, actual, expected));
                }
            }
        }
    }

    private long firstUnit(long l2Offset) {
        return Math.ceilDiv(l2Offset, laneBytes) * laneBytes;
    }

    private int crcOf(long l1Offset) {
        CRC32C crc = new CRC32C();
        crc.update(l1.slice(l1Offset, laneBytes).asByteBuffer());
        return (int) crc.getValue();
    }

    long checked() {
        return checked;
    }

    long mismatches() {
        return mismatches;
    }

    List<String> examples() {
        return List.copyOf(examples);
    }

    /** Every recorded unit lies on a unit boundary; the counts are consistent. */
    void checkInvariants() {
        for (long unit : byUnit.keySet()) {
            if (unit < 0 || unit % laneBytes != 0) {
                throw new IllegalStateException("a checksum is recorded for byte " + unit + ", not a unit of " + laneBytes + " bytes");
            }
        }
        if (mismatches > checked || examples.size() > Math.min(mismatches, EXAMPLES)) {
            throw new IllegalStateException(mismatches + " mismatches of " + checked + " checked, " + examples.size() + " examples");
        }
    }
}
