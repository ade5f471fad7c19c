package tierlab.experiments.calibration;

import java.util.List;

/**
 * The {@code calibration:} section of an experiment file of {@code kind: calibration} (E5): the live
 * engine's micro-benchmark and the device profile fitted to it. Every field may be left out [default];
 * {@link CalibrationRun#settings} checks them, each error naming its field.
 *
 * @param accesses        fio's names: {@code randread}, {@code randwrite}, {@code read}, {@code write} [all four]
 * @param blockSizesKiB   bytes per operation, in KiB [4, 16, 64, 128, 256, 512, 1024, 2048]
 * @param queueDepths     operations in flight [1, 4, 16, 64]
 * @param secondsPerPoint per repeat [0.5]
 * @param repeats         interleaved passes over the grid; figures are medians over them [3]
 * @param fileMiB         the O_DIRECT test file, created beside the output folder and deleted after [1024]
 * @param backend         {@code io_uring}, {@code filechannel} or {@code best} [best]
 * @param baseProfile     the bundled profile whose GPU and host terms the fitted profile keeps, and its PCIe
 *                        terms when PCIe is not measured [qwen3-8b-h100]
 * @param pcie            also sweep host↔GPU copies through CUDA and fit the profile's PCIe section; without
 *                        CUDA the run says "PCIe not measured" and keeps the preset's figures [true]
 */
public record CalibrationSection(List<String> accesses, List<Integer> blockSizesKiB, List<Integer> queueDepths,
                                 Double secondsPerPoint, Integer repeats, Long fileMiB, String backend,
                                 String baseProfile, Boolean pcie) {}
