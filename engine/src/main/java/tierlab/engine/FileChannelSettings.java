package tierlab.engine;

import tierlab.engine.uring.IoUringLayout;

/**
 * The settings of a {@link FileChannelBackend}. Each check names the setting it rejects.
 *
 * @param workerThreads      threads doing positional I/O; also the backend's queue depth (1..256; default 8)
 * @param preferDirectIo     open with {@code ExtendedOpenOption.DIRECT} when the file system supports it, else
 *                           buffered (default true); {@link FileChannelBackend#directIoStatus()} says which and why
 * @param maxTransferBytes   operations longer than this are split (a multiple of alignmentBytes, at most 0x7FFFF000;
 *                           a ByteBuffer cannot exceed 2 GiB anyway)
 * @param alignmentBytes     required alignment of l1Offset, l2Offset and length (power of two, 512..1 MiB; default 4096)
 * @param l2PreallocateBytes a regular L2 file smaller than this is extended to this size at open (0 = leave it)
 */
public record FileChannelSettings(int workerThreads, boolean preferDirectIo, long maxTransferBytes, int alignmentBytes,
                                  long l2PreallocateBytes) {

    public FileChannelSettings {
        if (workerThreads < 1 || workerThreads > 256) {
            throw new IllegalArgumentException("workerThreads must be between 1 and 256, was " + workerThreads);
        }
        if (alignmentBytes < 512 || alignmentBytes > (1 << 20) || Integer.bitCount(alignmentBytes) != 1) {
            throw new IllegalArgumentException("alignmentBytes must be a power of two between 512 and 1048576, was " + alignmentBytes);
        }
        if (maxTransferBytes < alignmentBytes || maxTransferBytes > IoUringLayout.MAX_RW_COUNT_BYTES || maxTransferBytes % alignmentBytes != 0) {
            throw new IllegalArgumentException("maxTransferBytes must be a multiple of alignmentBytes (" + alignmentBytes
                    + ") between " + alignmentBytes + " and " + IoUringLayout.MAX_RW_COUNT_BYTES + ", was " + maxTransferBytes);
        }
        if (l2PreallocateBytes < 0) {
            throw new IllegalArgumentException("l2PreallocateBytes must be >= 0, was " + l2PreallocateBytes);
        }
    }

    /** 8 workers, DIRECT when supported, split at 0x7FFFF000, 4096 alignment, no preallocation. */
    public static FileChannelSettings defaults() {
        return new FileChannelSettings(8, true, IoUringLayout.MAX_RW_COUNT_BYTES, 4096, 0);
    }

    public FileChannelSettings withWorkerThreads(int newWorkerThreads) {
        return new FileChannelSettings(newWorkerThreads, preferDirectIo, maxTransferBytes, alignmentBytes, l2PreallocateBytes);
    }

    public FileChannelSettings withMaxTransferBytes(long newMaxTransferBytes) {
        return new FileChannelSettings(workerThreads, preferDirectIo, newMaxTransferBytes, alignmentBytes, l2PreallocateBytes);
    }

    public FileChannelSettings withL2PreallocateBytes(long newPreallocateBytes) {
        return new FileChannelSettings(workerThreads, preferDirectIo, maxTransferBytes, alignmentBytes, newPreallocateBytes);
    }

    public FileChannelSettings withPreferDirectIo(boolean newPreferDirectIo) {
        return new FileChannelSettings(workerThreads, newPreferDirectIo, maxTransferBytes, alignmentBytes, l2PreallocateBytes);
    }
}
