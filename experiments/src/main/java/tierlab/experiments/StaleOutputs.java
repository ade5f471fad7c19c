package tierlab.experiments;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What earlier tierlab processes left beside an output folder when they were killed without a
 * chance to clean up (SIGKILL, a power cut): scratch L2 files in {@code .NAME.scratch/}, temporary
 * output folders {@code .NAME.tmp-PID-...} and previous outputs set aside as {@code .NAME.old-PID-...}.
 * Every such name carries the process id of its writer; only entries whose process is no longer
 * alive ({@link ProcessHandle}) are touched, so a run going on beside this one keeps its files.
 */
public final class StaleOutputs {

    /** A scratch L2 file: {@code l2-run<index>-<pid>.bin} (see RunExecutor). */
    private static final Pattern SCRATCH_FILE = Pattern.compile("l2-run\\d+-(\\d+)\\.bin");
    private static final Pattern SCRATCH_FOLDER = Pattern.compile("\\..+\\.scratch");
    /** {@code .NAME.tmp-<pid>-<nanos>-<attempt>} and {@code .NAME.old-...} (see AtomicOutputDirectory). */
    private static final Pattern WORK_FOLDER = Pattern.compile("\\.(.+)\\.(tmp|old)-(\\d+)-\\d+-\\d+");

    private StaleOutputs() {
    }

    /** The process id that wrote a scratch file named {@code name}, or -1 when the name is not one. */
    public static long scratchFileOwner(String name) {
        Matcher matcher = SCRATCH_FILE.matcher(name);
        return matcher.matches() ? Long.parseLong(matcher.group(1)) : -1;
    }

    /**
     * Removes the leftovers of dead processes in {@code folder} (the parent of output folders);
     * a previous output set aside by a process that died before putting the new one in place is
     * moved back rather than deleted. Returns one line per action, for the user.
     */
    public static List<String> clean(Path folder) {
        List<String> done = new ArrayList<>();
        if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
            return done;
        }
        List<Path> entries;
        try (Stream<Path> listed = Files.list(folder)) {
            entries = listed.sorted().toList();
        } catch (IOException e) {
            return done;
        }
        for (Path entry : entries) {
            String name = entry.getFileName().toString();
            if (!Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            if (SCRATCH_FOLDER.matcher(name).matches()) {
                cleanScratch(entry, done);
                continue;
            }
            Matcher work = WORK_FOLDER.matcher(name);
            if (work.matches() && !alive(Long.parseLong(work.group(3)))) {
                Path output = folder.resolve(work.group(1));
                if (work.group(2).equals("old") && !Files.exists(output, LinkOption.NOFOLLOW_LINKS)) {
                    try {
                        Files.move(entry, output, StandardCopyOption.ATOMIC_MOVE);
                        done.add("restored " + output + " from " + name + ", set aside by process " + work.group(3)
                                + " that died before writing its replacement");
                    } catch (IOException e) {
                        done.add("could not restore " + output + " from " + entry + ": " + IoProblems.describe(e));
                    }
                } else if (deleteTree(entry)) {
                    done.add("removed " + entry + ", left by process " + work.group(3) + " that is no longer running");
                }
            }
        }
        return done;
    }

    private static void cleanScratch(Path scratch, List<String> done) {
        List<Path> files;
        try (Stream<Path> listed = Files.list(scratch)) {
            files = listed.sorted().toList();
        } catch (IOException e) {
            return;
        }
        long freedBytes = 0;
        int removed = 0;
        for (Path file : files) {
            long owner = scratchFileOwner(file.getFileName().toString());
            if (owner < 0 || alive(owner)) {
                continue;
            }
            try {
                long size = Files.size(file);
                if (Files.deleteIfExists(file)) {
                    freedBytes += size;
                    removed++;
                }
            } catch (IOException ignored) {
                // Not ours to force: it stays, and the next run tries again.
            }
        }
        if (removed > 0) {
            done.add(String.format(Locale.ROOT, "removed %d scratch L2 file%s (%.1f MiB) in %s left by processes that are no longer running",
                    removed, removed == 1 ? "" : "s", freedBytes / (double) (1 << 20), scratch));
        }
        try {
            Files.deleteIfExists(scratch); // only when empty: a live run's files keep it
        } catch (IOException ignored) {
            // Not empty: another run is using it.
        }
    }

    /** Whether a process with this id is running (a reused id counts as alive: nothing of its is touched). */
    public static boolean alive(long pid) {
        return pid == ProcessHandle.current().pid() || ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Deletes a folder with everything in it; links are removed, not followed. */
    static boolean deleteTree(Path folder) {
        try (Stream<Path> paths = Files.walk(folder)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
