package tierlab.experiments.validate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * One line on the host a validation ran on: CPU, cores, memory, kernel, the L2 file system, the
 * storage backend and the GPU copy path (CUDA's device and driver, or host buffers and why).
 */
final class HostDescription {

    private HostDescription() {
    }

    static String describe(Path scratch, String backend, String gpuCopies) {
        String cpu = firstValue(Path.of("/proc/cpuinfo"), "model name");
        String memory = firstValue(Path.of("/proc/meminfo"), "MemTotal");
        String store;
        try {
            var fileStore = Files.getFileStore(scratch);
            store = fileStore.name() + " (" + fileStore.type() + ")";
        } catch (IOException e) {
            store = "unknown";
        }
        return String.format(Locale.ROOT, "%s, %d cores visible to the JVM, memory %s, Linux %s, L2 file on %s; live backend %s; GPU copies %s",
                cpu == null ? "unknown CPU" : cpu, Runtime.getRuntime().availableProcessors(),
                memory == null ? "unknown" : memory, System.getProperty("os.version"), store, backend, gpuCopies);
    }

    private static String firstValue(Path file, String key) {
        try {
            List<String> lines = Files.readAllLines(file);
            for (String line : lines) {
                if (line.startsWith(key)) {
                    return line.substring(line.indexOf(':') + 1).strip();
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return null;
    }
}
