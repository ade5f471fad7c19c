package tierlab.experiments.calibration;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import tierlab.engine.persist.CallerPaths;

/**
 * {@code tierlab bench pcie}: host↔GPU copies through the CUDA binding, swept and fitted by the
 * calibration's PCIe part ({@link PcieBench}); the launcher passes its flags through. The command
 * line's {@code Main} adds it to {@code bench}.
 */
@Command(
        name = "pcie",
        mixinStandardHelpOptions = true,
        description = {
            "Host-to-device and device-to-host copies through the CUDA binding (libcudart over FFM): a 2.25 MiB"
                    + " round trip checked byte for byte, then cudaMemcpyAsync sweeps over copy sizes (64 KiB-64 MiB"
                    + " and 2.25 MiB) and 1-4 streams from pinned memory (an mlocked arena registered with"
                    + " cudaHostRegister), plus pageable references; prints GB/s and the fitted PCIe model"
                    + " (latency + bytes/bandwidth per direction) and writes pcie.csv and pcie.md to --out."
                    + " Without CUDA it prints 'PCIe not measured: <reason>' and exits 1."})
public final class BenchPcieCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--sizes-kib", paramLabel = "A,B", split = ",",
            description = "Copy sizes in KiB [default: 64,256,1024,2304,4096,16384,65536].")
    private List<Long> sizesKib;

    @Option(names = "--streams", paramLabel = "A,B", split = ",", description = "Stream counts [default: 1,2,3,4].")
    private List<Integer> streams;

    @Option(names = "--mib-per-point", paramLabel = "N", description = "MiB each point moves per repeat [default: 1024].")
    private Long mibPerPoint;

    @Option(names = "--repeats", paramLabel = "N", description = "Passes over the grid; figures are medians [default: 3].")
    private Integer repeats;

    @Option(names = "--out", paramLabel = "DIR",
            description = "Folder for pcie.csv and pcie.md, relative to where tierlab was called [default: target/bench"
                    + " of the installation, beside the engine benchmark's files].")
    private Path out;

    @Option(names = "--quick", description = "Smoke test: 1, 2.25 and 16 MiB, 1 and 2 streams, 64 MiB per point, 1 repeat.")
    private boolean quick;

    @Override
    public Integer call() {
        PcieSweep.Settings base = quick ? PcieSweep.Settings.quick() : PcieSweep.Settings.defaults();
        PcieSweep.Settings settings;
        try {
            settings = new PcieSweep.Settings(
                    sizesKib == null ? base.copySizesBytes() : sizesKib.stream().map(k -> k * 1024).toList(),
                    streams == null ? base.streamCounts() : streams,
                    mibPerPoint == null ? base.bytesPerPoint() : mibPerPoint << 20,
                    repeats == null ? base.repeats() : repeats,
                    base.pageableSizes());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        Path folder = out == null ? Path.of("target", "bench") : CallerPaths.resolve(out);
        return PcieBench.run(settings, folder, spec.commandLine().getOut(), spec.commandLine().getErr());
    }
}
