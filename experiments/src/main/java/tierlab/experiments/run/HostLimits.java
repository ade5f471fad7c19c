package tierlab.experiments.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import tierlab.experiments.OutputFolderCheck;

/**
 * How large a real L1 and a real L2 file this host can take. Hybrid and live
 * runs allocate (and, live, mlock) their whole L1 and preallocate their whole L2 file, so their
 * sizes are bounded by the host rather than by fixed figures (it used to be 4 and 16 GiB, which
 * refused an 80 GiB L1 on a host with 125 GiB of memory):
 *
 * <ul>
 *   <li>L1: {@link L1MemoryBudget#SHARE_OF_AVAILABLE} of the memory available now
 *       (/proc/meminfo MemAvailable, lowered to a cgroup's memory.max); for a live run also
 *       RLIMIT_MEMLOCK, when the process lacks CAP_IPC_LOCK and so cannot lock more than it
 *       (a live L1 is pinned so that its figures are those of pinned memory);</li>
 *   <li>L2: the free space of the file system the L2 file goes to, plus the size of a persistent
 *       L2 file that is already there (it is reused, not added).</li>
 * </ul>
 *
 * <p>{@code store.l1LimitGiB} and {@code store.l2LimitGiB} replace either bound by a figure the
 * user takes responsibility for. A size over its bound is refused before any run with one line
 * that gives the bound, where it comes from and the override.
 */
final class HostLimits {

    /** CAP_IPC_LOCK's bit in /proc/self/status CapEff (linux/capability.h: CAP_IPC_LOCK 14). */
    static final int CAP_IPC_LOCK_BIT = 14;

    /** A bound in bytes and where it comes from, in words. */
    record Limit(long bytes, String source) {}

    /** What the host says, read once per check; tests construct one with chosen figures. */
    record Host(long availableMemoryBytes, long memlockSoftLimitBytes, boolean canLockBeyondLimit) {

        static Host current() {
            long memlock;
            try {
                memlock = tierlab.engine.uring.Libc.memlockSoftLimitBytes();
            } catch (Throwable e) {
                memlock = -1; // no native access: the lock itself will say why not
            }
            return new Host(L1MemoryBudget.availableMemoryBytes(), memlock, hasCapIpcLock());
        }
    }

    private HostLimits() {
    }

    /** The L1 bound of a run in {@code mode} ("hybrid" or "live"); {@code overrideGiB} wins when set. */
    static Limit l1(String mode, Double overrideGiB, Host host) {
        if (overrideGiB != null) {
            return new Limit(bytes(overrideGiB), "store.l1LimitGiB in the experiment file");
        }
        long memory = (long) (host.availableMemoryBytes() * L1MemoryBudget.SHARE_OF_AVAILABLE);
        String memorySource = String.format(Locale.ROOT, "%.0f%% of the %s of memory available on this host (MemAvailable)",
                L1MemoryBudget.SHARE_OF_AVAILABLE * 100, OutputFolderCheck.size(host.availableMemoryBytes()));
        boolean memlockBinds = mode.equals("live") && !host.canLockBeyondLimit() && host.memlockSoftLimitBytes() >= 0
                && host.memlockSoftLimitBytes() < memory;
        if (memlockBinds) {
            return new Limit(host.memlockSoftLimitBytes(), "RLIMIT_MEMLOCK of " + OutputFolderCheck.size(host.memlockSoftLimitBytes())
                    + ", which a live L1 must fit to be pinned (raise it with ulimit -l, or run with CAP_IPC_LOCK)");
        }
        return new Limit(memory, memorySource);
    }

    /**
     * The L2 bound for an L2 file at {@code l2File}; {@code overrideGiB} wins when set. A file
     * already there is reused, so its size counts as room.
     */
    static Limit l2(Path l2File, Double overrideGiB) {
        if (overrideGiB != null) {
            return new Limit(bytes(overrideGiB), "store.l2LimitGiB in the experiment file");
        }
        Path folder = existingFolder(l2File.toAbsolutePath().normalize().getParent());
        if (folder == null) {
            return new Limit(Long.MAX_VALUE, "no folder on the L2 file's path exists");
        }
        try {
            long free = Files.getFileStore(folder).getUsableSpace();
            long existing = Files.isRegularFile(l2File) ? Files.size(l2File) : 0;
            return new Limit(free + existing, "the free space of the file system at " + folder
                    + (existing > 0 ? " plus the existing L2 file" : ""));
        } catch (IOException e) {
            // A file system that cannot say its free space: the preallocation will tell.
            return new Limit(Long.MAX_VALUE, "unknown free space at " + folder);
        }
    }

    /** Null when {@code l1Bytes} fits, else the one line that refuses it. */
    static String l1Refusal(String mode, long l1Bytes, Limit limit) {
        if (l1Bytes <= limit.bytes()) {
            return null;
        }
        return "store.l1CapacityGiB: a " + mode + " run " + (mode.equals("live") ? "allocates and pins" : "allocates")
                + " a real L1 of " + OutputFolderCheck.size(l1Bytes) + "; at most " + OutputFolderCheck.size(limit.bytes())
                + " here (" + limit.source() + "); lower it, or set store.l1LimitGiB to override";
    }

    /** Null when {@code l2Bytes} fits, else the one line that refuses it. */
    static String l2Refusal(String mode, long l2Bytes, Limit limit) {
        if (l2Bytes <= limit.bytes()) {
            return null;
        }
        return "store.l2CapacityGiB: a " + mode + " run writes a real L2 file of " + OutputFolderCheck.size(l2Bytes)
                + "; at most " + OutputFolderCheck.size(limit.bytes()) + " here (" + limit.source()
                + "); lower it, or set store.l2LimitGiB to override";
    }

    private static long bytes(double gib) {
        return (long) Math.min(gib * Fields.GIB, (double) Long.MAX_VALUE);
    }

    private static Path existingFolder(Path start) {
        Path folder = start;
        while (folder != null && !Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
            folder = folder.getParent();
        }
        return folder;
    }

    /** Whether CapEff in /proc/self/status has CAP_IPC_LOCK (root normally has it); false where it cannot be read. */
    static boolean hasCapIpcLock() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/self/status"));
            for (String line : lines) {
                if (line.startsWith("CapEff:")) {
                    long caps = Long.parseUnsignedLong(line.substring("CapEff:".length()).strip(), 16);
                    return (caps >>> CAP_IPC_LOCK_BIT & 1) == 1;
                }
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
        return false;
    }
}
