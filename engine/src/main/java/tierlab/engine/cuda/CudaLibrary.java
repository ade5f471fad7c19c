package tierlab.engine.cuda;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Where libcudart is looked for, in order. Nothing is linked at build time: a host without CUDA
 * runs tierlab with host buffers, and one with CUDA finds the library here.
 *
 * <ol>
 *   <li>an explicit file: the system property {@value #PROPERTY}, else the environment variable
 *       {@value #ENVIRONMENT} (a path to the library itself); when set, it is the only candidate,
 *       so a wrong override is reported, not silently bypassed;</li>
 *   <li>for each name {@code libcudart.so.13}, {@code libcudart.so.12}, {@code libcudart.so} (the
 *       newest ABI first: CUDA 13's runtime on a CUDA 13 driver; 12 still runs on a 13 driver),
 *       each folder of {@code LD_LIBRARY_PATH}, then the toolkit folders
 *       {@code /usr/local/cuda/targets/x86_64-linux/lib}, {@code /usr/local/cuda/lib64}, the
 *       versioned {@code /usr/local/cuda-*} ones (newest first), then Debian's
 *       {@code /usr/lib/x86_64-linux-gnu}.</li>
 * </ol>
 */
public final class CudaLibrary {

    public static final String PROPERTY = "tierlab.cudart";
    public static final String ENVIRONMENT = "TIERLAB_CUDART";
    static final List<String> NAMES = List.of("libcudart.so.13", "libcudart.so.12", "libcudart.so");

    /** The library found, or why none was. */
    public record Lookup(Optional<Path> library, List<Path> tried, String reason) {}

    private CudaLibrary() {}

    /** The lookup on this host. */
    public static Lookup find() {
        String override = System.getProperty(PROPERTY);
        if (override == null || override.isBlank()) {
            override = System.getenv(ENVIRONMENT);
        }
        return find(override, System.getenv("LD_LIBRARY_PATH"), CudaLibrary::toolkitFolders, Files::isRegularFile);
    }

    /**
     * The lookup, with the host's state passed in (tests).
     *
     * @param override       an explicit path or null
     * @param ldLibraryPath  the variable's value or null
     * @param versionedRoots lists the {@code /usr/local/cuda-*} folders under a root
     * @param exists         whether a file exists
     */
    static Lookup find(String override, String ldLibraryPath, Function<Path, List<Path>> versionedRoots,
                       Predicate<Path> exists) {
        List<Path> candidates = candidates(override, ldLibraryPath, versionedRoots);
        for (Path candidate : candidates) {
            if (exists.test(candidate)) {
                return new Lookup(Optional.of(candidate), candidates, "found " + candidate);
            }
        }
        String reason = override != null && !override.isBlank()
                ? "no libcudart at " + override + " (set by " + PROPERTY + " or " + ENVIRONMENT + ")"
                : "no libcudart.so.13, .so.12 or .so in LD_LIBRARY_PATH, /usr/local/cuda*/ or /usr/lib/x86_64-linux-gnu";
        return new Lookup(Optional.empty(), candidates, reason);
    }

    /** Every path tried, in order. */
    static List<Path> candidates(String override, String ldLibraryPath, Function<Path, List<Path>> versionedRoots) {
        if (override != null && !override.isBlank()) {
            return List.of(Path.of(override));
        }
        LinkedHashSet<Path> folders = new LinkedHashSet<>();
        if (ldLibraryPath != null) {
            for (String folder : ldLibraryPath.split(":")) {
                if (!folder.isBlank()) {
                    folders.add(Path.of(folder));
                }
            }
        }
        folders.add(Path.of("/usr/local/cuda/targets/x86_64-linux/lib"));
        folders.add(Path.of("/usr/local/cuda/lib64"));
        for (Path root : versionedRoots.apply(Path.of("/usr/local"))) {
            folders.add(root.resolve("targets/x86_64-linux/lib"));
            folders.add(root.resolve("lib64"));
        }
        folders.add(Path.of("/usr/lib/x86_64-linux-gnu"));
        List<Path> candidates = new ArrayList<>();
        for (String name : NAMES) {
            for (Path folder : folders) {
                candidates.add(folder.resolve(name));
            }
        }
        return candidates;
    }

    /** {@code /usr/local/cuda-13.0}, {@code cuda-12.8}, ...: newest version first. */
    static List<Path> toolkitFolders(Path root) {
        try (Stream<Path> entries = Files.list(root)) {
            return sortedNewestFirst(entries.filter(p -> p.getFileName().toString().startsWith("cuda-")).toList());
        } catch (java.io.IOException | SecurityException e) {
            return List.of();
        }
    }

    static List<Path> sortedNewestFirst(List<Path> folders) {
        Comparator<Path> byVersion = Comparator.comparing(p -> versionKey(p.getFileName().toString().substring("cuda-".length())));
        return folders.stream().sorted(byVersion.reversed()).toList();
    }

    /** "12.10" sorts after "12.9": each dotted part compared as a number. */
    private static VersionKey versionKey(String version) {
        String[] parts = version.split("\\.");
        int major = parts.length > 0 ? parse(parts[0]) : 0;
        int minor = parts.length > 1 ? parse(parts[1]) : 0;
        return new VersionKey(major, minor);
    }

    private record VersionKey(int major, int minor) implements Comparable<VersionKey> {
        @Override
        public int compareTo(VersionKey other) {
            return major != other.major ? Integer.compare(major, other.major) : Integer.compare(minor, other.minor);
        }
    }

    private static int parse(String digits) {
        try {
            return Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
