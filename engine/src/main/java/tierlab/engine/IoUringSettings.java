package tierlab.engine;

import tierlab.engine.uring.IoUringLayout;

/**
 * The settings of an {@link IoUringBackend}. Each check names the setting it rejects.
 *
 * @param ringCount             rings, each with its own event-loop thread (1..64; default 8)
 * @param ringEntries           SQ entries per ring, a power of two (2..4096; default 64); the CQ has twice as many
 * @param fixedBuffers          register the arena as fixed buffers and use READ_FIXED/WRITE_FIXED (default true);
 *                              when registration fails (RLIMIT_MEMLOCK) the ring uses READ/WRITE and says why
 * @param maxTransferBytes      operations longer than this are split (default 0x7FFFF000, the kernel's MAX_RW_COUNT);
 *                              a multiple of {@code alignmentBytes}
 * @param fixedBufferChunkBytes the arena is registered as iovecs of at most this size (default 1 GiB, the kernel's
 *                              limit per registered buffer); transfers never cross a chunk boundary
 * @param alignmentBytes        required alignment of l1Offset, l2Offset and length (power of two, 512..1 MiB; default 4096)
 * @param l2PreallocateBytes    when the L2 file is a regular file smaller than this, it is extended to this size
 *                              with fallocate at open (0 = leave the size alone; writes extend the file)
 * @param directIo              open the L2 file with O_DIRECT (default true); false only for file systems without it
 */
public record IoUringSettings(int ringCount, int ringEntries, boolean fixedBuffers, long maxTransferBytes,
                              long fixedBufferChunkBytes, int alignmentBytes, long l2PreallocateBytes, boolean directIo) {

    public static final int MAX_RINGS = 64;
    public static final int MAX_RING_ENTRIES = 4096;

    public IoUringSettings {
        if (ringCount < 1 || ringCount > MAX_RINGS) {
            throw new IllegalArgumentException("ringCount must be between 1 and " + MAX_RINGS + ", was " + ringCount);
        }
        if (ringEntries < 2 || ringEntries > MAX_RING_ENTRIES || Integer.bitCount(ringEntries) != 1) {
            throw new IllegalArgumentException("ringEntries must be a power of two between 2 and " + MAX_RING_ENTRIES + ", was " + ringEntries);
        }
        if (alignmentBytes < 512 || alignmentBytes > (1 << 20) || Integer.bitCount(alignmentBytes) != 1) {
            throw new IllegalArgumentException("alignmentBytes must be a power of two between 512 and 1048576, was " + alignmentBytes);
        }
        if (maxTransferBytes < alignmentBytes || maxTransferBytes > IoUringLayout.MAX_RW_COUNT_BYTES || maxTransferBytes % alignmentBytes != 0) {
            throw new IllegalArgumentException("maxTransferBytes must be a multiple of alignmentBytes (" + alignmentBytes
                    + ") between " + alignmentBytes + " and " + IoUringLayout.MAX_RW_COUNT_BYTES + ", was " + maxTransferBytes);
        }
        if (fixedBufferChunkBytes < alignmentBytes || fixedBufferChunkBytes > IoUringLayout.MAX_REGISTERED_BUFFER_BYTES
                || fixedBufferChunkBytes % alignmentBytes != 0) {
            throw new IllegalArgumentException("fixedBufferChunkBytes must be a multiple of alignmentBytes (" + alignmentBytes
                    + ") between " + alignmentBytes + " and " + IoUringLayout.MAX_REGISTERED_BUFFER_BYTES + ", was " + fixedBufferChunkBytes);
        }
        if (l2PreallocateBytes < 0) {
            throw new IllegalArgumentException("l2PreallocateBytes must be >= 0, was " + l2PreallocateBytes);
        }
    }

    /** 8 rings × 64 entries, fixed buffers, split at MAX_RW_COUNT, 1 GiB registration chunks, 4096 alignment, O_DIRECT. */
    public static IoUringSettings defaults() {
        return new IoUringSettings(8, 64, true, IoUringLayout.MAX_RW_COUNT_BYTES, IoUringLayout.MAX_REGISTERED_BUFFER_BYTES,
                4096, 0, true);
    }

    public IoUringSettings withRings(int newRingCount, int newRingEntries) {
        return new IoUringSettings(newRingCount, newRingEntries, fixedBuffers, maxTransferBytes, fixedBufferChunkBytes,
                alignmentBytes, l2PreallocateBytes, directIo);
    }

    public IoUringSettings withFixedBuffers(boolean newFixedBuffers) {
        return new IoUringSettings(ringCount, ringEntries, newFixedBuffers, maxTransferBytes, fixedBufferChunkBytes,
                alignmentBytes, l2PreallocateBytes, directIo);
    }

    public IoUringSettings withMaxTransferBytes(long newMaxTransferBytes) {
        return new IoUringSettings(ringCount, ringEntries, fixedBuffers, newMaxTransferBytes, fixedBufferChunkBytes,
                alignmentBytes, l2PreallocateBytes, directIo);
    }

    public IoUringSettings withFixedBufferChunkBytes(long newChunkBytes) {
        return new IoUringSettings(ringCount, ringEntries, fixedBuffers, maxTransferBytes, newChunkBytes,
                alignmentBytes, l2PreallocateBytes, directIo);
    }

    public IoUringSettings withL2PreallocateBytes(long newPreallocateBytes) {
        return new IoUringSettings(ringCount, ringEntries, fixedBuffers, maxTransferBytes, fixedBufferChunkBytes,
                alignmentBytes, newPreallocateBytes, directIo);
    }

    public IoUringSettings withDirectIo(boolean newDirectIo) {
        return new IoUringSettings(ringCount, ringEntries, fixedBuffers, maxTransferBytes, fixedBufferChunkBytes,
                alignmentBytes, l2PreallocateBytes, newDirectIo);
    }
}
