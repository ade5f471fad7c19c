package tierlab.experiments;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Writes a job's output folder so that it is either complete or absent: the files go into a
 * hidden temporary folder beside the target, which is renamed into place only once every file is
 * written. An earlier output folder is renamed aside first and deleted only after the new one is
 * in place, so a failure at any step leaves the previous outputs (or nothing) behind.
 *
 * <p>The target is replaced whole, so it must hold nothing but files this job writes: a folder
 * with anything else in it (say {@code --out .}) is refused rather than deleted.
 */
public final class AtomicOutputDirectory {

    /** Fills the temporary folder with the job's files. */
    @FunctionalInterface
    public interface Contents {
        void writeInto(Path directory) throws IOException;
    }

    private AtomicOutputDirectory() {
    }

    /**
     * Throws a {@link CommandException} unless {@code target} is absent or is a folder holding
     * only regular files named in {@code ownedNames}. Jobs call it before their work, so a bad
     * {@code --out} fails in a second rather than after the run.
     */
    public static void checkReplaceable(Path target, Set<String> ownedNames) {
        Path absolute = target.toAbsolutePath().normalize();
        if (absolute.getParent() == null) {
            throw new CommandException("output folder " + target + " is a file-system root; choose a folder below it");
        }
        if (!Files.exists(absolute, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (!Files.isDirectory(absolute, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            throw new CommandException("output path " + target + " exists and is not a folder");
        }
        List<String> foreign = new ArrayList<>();
        try (Stream<Path> entries = Files.list(absolute)) {
            entries.sorted().forEach(entry -> {
                String name = entry.getFileName().toString();
                if (!ownedNames.contains(name) || !Files.isRegularFile(entry, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    foreign.add(name);
                }
            });
        } catch (IOException e) {
            throw new CommandException("cannot list output folder " + target + ": " + e.getMessage(), e);
        }
        if (!foreign.isEmpty()) {
            String shown = String.join(", ", foreign.subList(0, Math.min(5, foreign.size())))
                    + (foreign.size() > 5 ? ", ..." : "");
            throw new CommandException("output folder " + target + " holds files this job does not write ("
                    + shown + "); it would be replaced whole, so choose another --out or empty it");
        }
    }

    /**
     * Writes {@code target} through a temporary folder beside it (see the class comment). Parent
     * folders are created as needed and removed again if the write fails.
     */
    public static void write(Path target, Set<String> ownedNames, Contents contents) {
        checkReplaceable(target, ownedNames);
        Path absolute = target.toAbsolutePath().normalize();
        Path parent = absolute.getParent();
        Path firstCreated = firstMissingAncestor(parent);
        Path temporary = null;
        ExitCleanup.Registration onExit = null;
        try {
            Files.createDirectories(parent);
            temporary = createTemporaryFolder(parent, "." + absolute.getFileName() + ".tmp-");
            // SIGINT or SIGTERM while the files are written: the half-written folder goes too.
            Path written = temporary;
            onExit = ExitCleanup.register(() -> deleteQuietly(written));
            contents.writeInto(temporary);
            moveIntoPlace(temporary, absolute);
            temporary = null;
            onExit.close(); // the folder is the output now, under another name: nothing left to delete
        } catch (IOException | RuntimeException e) {
            if (onExit != null) {
                onExit.close();
            }
            deleteQuietly(temporary);
            removeEmptyFolders(firstCreated, parent);
            if (e instanceof CommandException commandException) {
                throw commandException;
            }
            if (e instanceof RuntimeException bug && !CommandException.isUserError(bug)) {
                // Not a file problem: a defect in the job, which must keep its type and stack trace.
                throw bug;
            }
            throw new CommandException(failedWrite(target, absolute, written(e, temporaryOf(e, parent, absolute)), e), e);
        }
    }

    /**
     * The line for a failed write: the file as it would have been named in the output ("cannot write
     * out/x/results.csv: no space left on device (ENOSPC)"), not its temporary name, and that the output
     * folder is as it was.
     */
    private static String failedWrite(Path target, Path absolute, Path fileInOutput, Exception e) {
        String kept = Files.exists(absolute, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                ? "; " + target + " is left as it was" : "; nothing was written to " + target;
        if (fileInOutput != null) {
            return "cannot write " + target.resolve(fileInOutput) + ": " + IoProblems.describe(e) + kept;
        }
        return "cannot write output folder " + target + ": " + CommandException.describe(e) + kept;
    }

    /** The temporary folder of this output that the failed file lies in, or null. */
    private static Path temporaryOf(Exception e, Path parent, Path absolute) {
        Path file = failedFile(e);
        if (file == null || !file.startsWith(parent) || file.getNameCount() <= parent.getNameCount()) {
            return null;
        }
        Path first = parent.resolve(file.getName(parent.getNameCount()));
        return first.getFileName().toString().startsWith("." + absolute.getFileName() + ".tmp-") ? first : null;
    }

    /** The failed file relative to the temporary folder it was written in, or null when it was not one of the output's files. */
    private static Path written(Exception e, Path temporary) {
        Path file = failedFile(e);
        return temporary == null || file == null || file.equals(temporary) ? null : temporary.relativize(file);
    }

    private static Path failedFile(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof java.nio.file.FileSystemException named && named.getFile() != null) {
                return Path.of(named.getFile()).toAbsolutePath().normalize();
            }
        }
        return null;
    }

    /**
     * A new, empty folder in {@code parent}. Not {@code Files.createTempDirectory}: that one is
     * private to the owner (0700), and the folder becomes the output, which should get the usual
     * permissions (the umask's) like any folder the user creates.
     */
    private static Path createTemporaryFolder(Path parent, String prefix) throws IOException {
        long pid = ProcessHandle.current().pid();
        for (int attempt = 0; ; attempt++) {
            Path candidate = parent.resolve(prefix + pid + "-" + System.nanoTime() + "-" + attempt);
            try {
                return Files.createDirectory(candidate);
            } catch (FileAlreadyExistsException e) {
                if (attempt >= 100) {
                    throw e;
                }
            }
        }
    }

    private static void moveIntoPlace(Path temporary, Path target) throws IOException {
        if (!Files.exists(target, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            atomicMove(temporary, target);
            return;
        }
        Path backup = target.resolveSibling(temporary.getFileName().toString().replace(".tmp-", ".old-"));
        atomicMove(target, backup);
        try {
            atomicMove(temporary, target);
        } catch (IOException e) {
            // Put the previous outputs back so the failure leaves things as they were.
            try {
                atomicMove(backup, target);
            } catch (IOException restoreFailure) {
                e.addSuppressed(restoreFailure);
            }
            throw e;
        }
        deleteQuietly(backup);
    }

    private static void atomicMove(Path source, Path destination) throws IOException {
        try {
            Files.move(source, destination, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException | FileAlreadyExistsException e) {
            throw new IOException("cannot rename " + source + " to " + destination + ": " + e.getMessage(), e);
        }
    }

    /** The highest folder on the way to {@code folder} that does not exist yet, or null if it exists. */
    private static Path firstMissingAncestor(Path folder) {
        Path missing = null;
        for (Path current = folder; current != null && !Files.exists(current); current = current.getParent()) {
            missing = current;
        }
        return missing;
    }

    /** Removes the folders from {@code deepest} up to {@code highest} that are empty (the ones this write created). */
    static void removeEmptyFolders(Path highest, Path deepest) {
        if (highest == null) {
            return;
        }
        for (Path current = deepest; current != null && current.startsWith(highest); current = current.getParent()) {
            try {
                Files.deleteIfExists(current);
            } catch (IOException e) {
                return; // not empty (or not ours to remove): leave it and everything above it
            }
        }
    }

    /** Deletes a folder this class created, with everything in it; symbolic links are removed, not followed. */
    private static void deleteQuietly(Path folder) {
        if (folder == null || !Files.exists(folder, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(folder)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException | RuntimeException e) {
            // Best effort: a leftover hidden .tmp- or .old- folder is harmless and says what it is.
        }
    }
}
