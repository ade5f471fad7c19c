package tierlab.experiments;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One process at a time per output folder: an OS file lock ({@link FileChannel#tryLock}) on
 * {@code .NAME.lock} beside the folder {@code NAME}, held from before the first run until the outputs
 * are in place, then the file is removed. The lock is the kernel's, so a run killed by SIGKILL holds
 * nothing afterwards and its leftover file is simply taken over; the output folder itself never holds
 * the lock file, so what it holds stays exactly the job's files. A second process is refused in one
 * line that names the folder and the holder's process id, which the holder writes into the file.
 */
public final class OutputLock implements AutoCloseable {

    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;
    private final Path firstCreated;
    private final ExitCleanup.Registration onExit;

    private OutputLock(Path file, FileChannel channel, FileLock lock, Path firstCreated) {
        this.file = file;
        this.channel = channel;
        this.lock = lock;
        this.firstCreated = firstCreated;
        // SIGINT or SIGTERM: the lock goes with the process, and the file with it.
        this.onExit = ExitCleanup.register(this::deleteFile);
    }

    /** The lock file of {@code target}: {@code .NAME.lock} in its parent. */
    public static Path lockFileOf(Path target) {
        Path absolute = target.toAbsolutePath().normalize();
        return absolute.resolveSibling("." + absolute.getFileName() + ".lock");
    }

    /**
     * Takes the lock of {@code target}, creating its parent folders (removed again on {@link #close}
     * when nothing else was put in them), or throws a {@link CommandException} naming the folder and
     * the process that holds it.
     */
    public static OutputLock acquire(Path target) {
        Path file = lockFileOf(target);
        Path parent = file.getParent();
        Path firstCreated = null;
        for (Path current = parent; current != null && !Files.exists(current); current = current.getParent()) {
            firstCreated = current;
        }
        try {
            Files.createDirectories(parent);
            // A holder that finished between our open and our lock has removed the file we locked: lock the new one.
            for (int attempt = 0; attempt < 100; attempt++) {
                OutputLock held = tryOnce(target, file, firstCreated);
                if (held != null) {
                    return held;
                }
            }
            throw new CommandException("cannot lock output folder " + target + ": its lock file " + file + " kept changing");
        } catch (IOException e) {
            AtomicOutputDirectory.removeEmptyFolders(firstCreated, parent);
            throw new CommandException("cannot lock output folder " + target + " (through " + file + "): "
                    + IoProblems.describe(e), e);
        }
    }

    /** The lock, or null when the file locked was replaced meanwhile; refuses when another process holds it. */
    private static OutputLock tryOnce(Path target, Path file, Path firstCreated) throws IOException {
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS);
        try {
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (java.nio.channels.OverlappingFileLockException heldHere) {
                lock = null; // this JVM holds it already (a command run twice in one process)
            }
            if (lock == null) {
                String holder = holderOf(channel);
                channel.close();
                throw new CommandException("output folder " + target + " is being written by another tierlab run ("
                        + holder + "); wait for it to finish or choose another --out");
            }
            String pid = Long.toString(ProcessHandle.current().pid());
            channel.truncate(0);
            channel.write(ByteBuffer.wrap((pid + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
            channel.force(false);
            if (!pid.equals(readPid(file))) {
                channel.close(); // the path names another file now: try again with it
                return null;
            }
            return new OutputLock(file, channel, lock, firstCreated);
        } catch (IOException | RuntimeException e) {
            if (channel.isOpen()) {
                channel.close();
            }
            throw e;
        }
    }

    /** "process N" from the holder's file; the holder writes its id just after it takes the lock. */
    private static String holderOf(FileChannel channel) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(32);
        channel.read(bytes, 0);
        String text = new String(bytes.array(), 0, bytes.position(), StandardCharsets.US_ASCII).strip();
        return text.matches("\\d{1,19}") ? "process " + text : "a process that is just starting";
    }

    private static String readPid(Path file) throws IOException {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII).strip();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** Removes the lock file, then releases the lock; the parent folders it created go too when empty. */
    @Override
    public void close() {
        onExit.close(); // removes the file while the lock is still held
        try {
            if (lock.isValid()) {
                lock.release();
            }
            channel.close();
        } catch (IOException e) {
            // The process ends soon; the kernel releases what is left.
        }
        AtomicOutputDirectory.removeEmptyFolders(firstCreated, file.getParent());
    }

    private void deleteFile() {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // A leftover lock file holds no lock: the next run takes it over.
        }
    }
}
