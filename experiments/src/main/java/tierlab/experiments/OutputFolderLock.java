package tierlab.experiments;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * Holds an output folder for one job from its first check to its last write, so that two tierlab
 * processes given the same {@code --out} do not both run and both say "wrote": the second is refused
 * at once, naming the process that holds the folder.
 *
 * <p>The lock is a {@link FileLock} on {@code .NAME.lock} beside the folder, not inside it: the folder
 * is written elsewhere and renamed into place whole ({@link AtomicOutputDirectory}), so a file inside it
 * would move with the old outputs. The operating system drops the lock when its process ends, even by
 * SIGKILL, so a dead run never blocks the next one. The file itself stays (empty when nobody holds it):
 * removing it would let a process that opened it just before hold a lock on a file no longer there
 * while a third locks a new one.
 */
public final class OutputFolderLock implements AutoCloseable {

    private final FileChannel channel;
    private final FileLock lock;

    private OutputFolderLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** The lock file of the output folder {@code target}: {@code .NAME.lock} in its parent. */
    public static Path lockFileOf(Path target) {
        Path absolute = target.toAbsolutePath().normalize();
        if (absolute.getParent() == null) {
            throw new CommandException("output folder " + target + " is a file-system root; choose a folder below it");
        }
        return absolute.resolveSibling("." + absolute.getFileName() + ".lock");
    }

    /**
     * Takes the output folder {@code target} for this process, or throws a {@link CommandException} saying
     * which process holds it. The parent folder is created if needed.
     */
    public static OutputFolderLock acquire(Path target) {
        Path lockFile = lockFileOf(target);
        FileChannel channel = null;
        try {
            Files.createDirectories(lockFile.getParent());
            channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException sameProcess) {
                throw refusal(target, "this process");
            }
            if (lock == null) {
                String holder = holderOf(channel);
                throw refusal(target, holder.isEmpty() ? "another process" : holder);
            }
            // Who holds it, for the message of a run refused meanwhile. Written through the locked channel only:
            // opening the file a second time and closing it would drop this process's lock (POSIX record locks).
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(("process " + ProcessHandle.current().pid() + ", since " + Instant.now())
                    .getBytes(StandardCharsets.UTF_8)), 0);
            channel.force(false);
            OutputFolderLock held = new OutputFolderLock(channel, lock);
            channel = null;
            return held;
        } catch (IOException e) {
            throw new CommandException("output folder " + target + ": cannot create its lock file " + lockFile + ": "
                    + IoProblems.describe(e), e);
        } finally {
            closeQuietly(channel);
        }
    }

    private static CommandException refusal(Path target, String holder) {
        return new CommandException("output folder " + target + " is being written by another tierlab run (" + holder
                + "); wait for it to finish or choose another --out");
    }

    private static String holderOf(FileChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(256);
        int read = channel.read(buffer, 0);
        return read <= 0 ? "" : new String(buffer.array(), 0, read, StandardCharsets.UTF_8).strip();
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // Its descriptor and any lock go with the process in any case.
            }
        }
    }

    /** Empties the lock file (nobody holds the folder) and releases the lock. */
    @Override
    public void close() {
        try {
            channel.truncate(0);
            lock.release();
        } catch (IOException ignored) {
            // Closing the channel below releases the lock all the same.
        } finally {
            closeQuietly(channel);
        }
    }
}
