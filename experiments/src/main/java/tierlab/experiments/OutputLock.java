package tierlab.experiments;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import tierlab.engine.persist.L2FileLock;

/**
 * One process at a time per output folder: an exclusive {@code flock(2)} on {@code .NAME.lock} beside
 * the folder {@code NAME} ({@link L2FileLock}, the lock the persistent L2 file takes on its inode),
 * held from before the first run until the outputs are in place, then the file is removed. The lock
 * is the kernel's, so a run killed by SIGKILL holds nothing afterwards and its leftover file is
 * simply taken over; the output folder itself never holds the lock file, so what it holds stays
 * exactly the job's files. A second process is refused in one line that names the folder and the
 * holder's process id, which the holder writes into the file.
 *
 * <p>Not a POSIX record lock ({@link java.nio.channels.FileChannel#tryLock}): the kernel drops one of
 * those as soon as the process closes any descriptor of the file, and writing or reading the holder's
 * id opens one; a second run then got in while the first was still writing.
 */
public final class OutputLock implements AutoCloseable {

    private final Path file;
    private final L2FileLock lock;
    private final Path firstCreated;
    private final ExitCleanup.Registration onExit;

    private OutputLock(Path file, L2FileLock lock, Path firstCreated) {
        this.file = file;
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
        L2FileLock lock = null;
        try {
            Files.createDirectories(parent);
            // A holder that finishes while we open removes the file we opened: the lock checks the name still names it.
            lock = L2FileLock.acquire(file);
            Files.writeString(file, ProcessHandle.current().pid() + "\n", StandardCharsets.US_ASCII);
            return new OutputLock(file, lock, firstCreated);
        } catch (L2FileLock.HeldException held) {
            throw new CommandException("output folder " + target + " is being written by another tierlab run ("
                    + holderOf(file) + "); wait for it to finish or choose another --out");
        } catch (IOException e) {
            if (lock != null) {
                lock.close();
            }
            AtomicOutputDirectory.removeEmptyFolders(firstCreated, parent);
            throw new CommandException("cannot lock output folder " + target + " (through " + file + "): "
                    + IoProblems.describe(e), e);
        }
    }

    /** "process N" from the holder's file; the holder writes its id just after it takes the lock. */
    private static String holderOf(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII).strip();
        } catch (IOException e) {
            text = ""; // gone already: the holder has just finished
        }
        return text.matches("\\d{1,19}") ? "process " + text : "a process that is just starting";
    }

    /** While held, the lock's descriptor is on the file it locked. */
    public void checkInvariants() {
        lock.checkInvariants();
    }

    /** Removes the lock file, then releases the lock; the parent folders it created go too when empty. */
    @Override
    public void close() {
        onExit.close(); // removes the file while the lock is still held
        lock.close();
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
