package tierlab.engine.cuda.compute;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Where the compute path's libraries are looked for: cuBLAS ({@code libcublasLt} first, which
 * {@code libcublas} needs), NVRTC (and its builtins, which it loads by name) in the folder libcudart
 * was found in, then each folder of {@code LD_LIBRARY_PATH}, then the toolkit's
 * {@code /usr/local/cuda/targets/x86_64-linux/lib} and {@code /usr/local/cuda/lib64};
 * {@code TIERLAB_CUDA_LIBS} (a folder) is searched first when set. The driver library is
 * {@code libcuda.so.1} wherever the dynamic loader finds it (the driver installs it, not the toolkit).
 */
public final class ComputeLibraries {

    public static final String ENVIRONMENT = "TIERLAB_CUDA_LIBS";
    static final List<String> CUBLAS_LT = List.of("libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so");
    static final List<String> CUBLAS = List.of("libcublas.so.13", "libcublas.so.12", "libcublas.so");
    static final List<String> NVRTC = List.of("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so");
    static final List<String> NVRTC_BUILTINS = List.of("libnvrtc-builtins.so.13.0", "libnvrtc-builtins.so.12.8",
            "libnvrtc-builtins.so");
    static final Path DRIVER = Path.of("libcuda.so.1");

    /** The files found, or the first one missing, in words. */
    public record Found(Optional<Path> cublasLt, Optional<Path> cublas, Optional<Path> nvrtc,
                        Optional<Path> nvrtcBuiltins, List<Path> folders) {
        public Optional<String> missing() {
            if (nvrtc.isEmpty()) {
                return Optional.of("no libnvrtc.so.13/.12 in " + folders);
            }
            if (cublas.isEmpty() || cublasLt.isEmpty()) {
                return Optional.of("no libcublas.so.13/.12 with its libcublasLt in " + folders);
            }
            return Optional.empty();
        }
    }

    private ComputeLibraries() {}

    /** The lookup on this host, starting beside {@code cudart} (may be null). */
    public static Found find(Path cudart) {
        return find(cudart, System.getenv(ENVIRONMENT), System.getenv("LD_LIBRARY_PATH"), Files::isRegularFile);
    }

    static Found find(Path cudart, String override, String ldLibraryPath, Predicate<Path> exists) {
        List<Path> folders = folders(cudart, override, ldLibraryPath);
        return new Found(first(folders, CUBLAS_LT, exists), first(folders, CUBLAS, exists), first(folders, NVRTC, exists),
                first(folders, NVRTC_BUILTINS, exists), folders);
    }

    static List<Path> folders(Path cudart, String override, String ldLibraryPath) {
        LinkedHashSet<Path> folders = new LinkedHashSet<>();
        if (override != null && !override.isBlank()) {
            folders.add(Path.of(override));
        }
        if (cudart != null && cudart.getParent() != null) {
            folders.add(cudart.getParent());
        }
        if (ldLibraryPath != null) {
            for (String folder : ldLibraryPath.split(":")) {
                if (!folder.isBlank()) {
                    folders.add(Path.of(folder));
                }
            }
        }
        folders.add(Path.of("/usr/local/cuda/targets/x86_64-linux/lib"));
        folders.add(Path.of("/usr/local/cuda/lib64"));
        return new ArrayList<>(folders);
    }

    private static Optional<Path> first(List<Path> folders, List<String> names, Predicate<Path> exists) {
        for (String name : names) {
            for (Path folder : folders) {
                Path candidate = folder.resolve(name);
                if (exists.test(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }
}
