package tierlab.experiments.run;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import tierlab.engine.FileChannelBackend;
import tierlab.engine.IoUringBackend;
import tierlab.engine.PinnedArena;
import tierlab.engine.uring.IoUringProbe;
import tierlab.model.io.StoragePort;

/**
 * What a hybrid or live run ran on, for its entry in run.json, so that a live figure says what it measured: whether its L1
 * arena was pinned (mlocked) and why not, which storage backend served L2 and why that one, and
 * how KV moved between L1 and the GPU. A sim run has none of these (its devices are models).
 *
 * @param l1Pinned       the L1 arena is mlocked; null before the arena exists
 * @param l1Lock         the lock's outcome in words ("locked", or the errno and RLIMIT_MEMLOCK)
 * @param storageBackend the L2 port in words: {@code io_uring, ...} or {@code filechannel (io_uring
 *                       unavailable: CAUSE), ...}; null before the port is open
 * @param gpuCopies      the copy path of a live run: {@link #HOST_BUFFERS} until a CUDA copy port
 *                       fills in the device and driver; null for a hybrid run (its copies are the
 *                       simulator's PCIe model)
 */
public record RunFacts(Boolean l1Pinned, String l1Lock, String storageBackend, String gpuCopies) {

    /** A live run without a CUDA copy path: GPU KV blocks are host memory and copies are memcpy. */
    public static final String HOST_BUFFERS = "host buffers";

    static final RunFacts NONE = new RunFacts(null, null, null, null);

    RunFacts withArena(PinnedArena arena) {
        return new RunFacts(arena.lockStatus().locked(), arena.lockStatus().reason(), storageBackend, gpuCopies);
    }

    RunFacts withStorage(StoragePort port) {
        return new RunFacts(l1Pinned, l1Lock, describe(port, IoUringBackend.probe()), gpuCopies);
    }

    RunFacts withGpuCopies(String description) {
        return new RunFacts(l1Pinned, l1Lock, storageBackend, description);
    }

    /** The storage port in words, and for the FileChannel fallback why io_uring was not used. */
    static String describe(StoragePort port, IoUringProbe probe) {
        return switch (port) {
            case IoUringBackend uring -> "io_uring, " + uring.settings().ringCount() + " ring(s) x " + uring.settings().ringEntries() + " entries, "
                    + (uring.settings().directIo() ? "O_DIRECT" : "buffered") + ", "
                    + (uring.fixedBuffersActive() ? "READ_FIXED/WRITE_FIXED" : "plain READ/WRITE: "
                    + String.join("; ", uring.fixedBufferStatus()));
            case FileChannelBackend channel -> "filechannel (" + (probe.available() ? "chosen" : "io_uring unavailable: "
                    + probe.cause()) + "), " + channel.directIoStatus();
            default -> port.getClass().getSimpleName();
        };
    }

    /** Writes the known facts into a run's run.json entry (absent ones are left out, not null). */
    void writeTo(ObjectNode run) {
        if (l1Pinned != null) {
            run.put("l1Pinned", l1Pinned);
        }
        if (l1Lock != null) {
            run.put("l1Lock", l1Lock);
        }
        if (storageBackend != null) {
            run.put("storageBackend", storageBackend);
        }
        if (gpuCopies != null) {
            run.put("gpuCopies", gpuCopies);
        }
    }

    /** The JSON keys {@link #writeTo} may write, in order (catalogue README, run.json). */
    static final List<String> KEYS = List.of("l1Pinned", "l1Lock", "storageBackend", "gpuCopies");
}
