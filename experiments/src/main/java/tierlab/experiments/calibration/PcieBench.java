package tierlab.experiments.calibration;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import tierlab.engine.PayloadPattern;
import tierlab.engine.cuda.CudaApi;
import tierlab.engine.cuda.CudaDevice;
import tierlab.engine.cuda.CudaException;
import tierlab.engine.persist.AtomicFiles;
import tierlab.model.geometry.BlockKey;

/**
 * {@code tierlab bench pcie}: finds the GPU, checks that a block survives a host→device→host round
 * trip byte for byte, runs the calibration's PCIe part ({@link Calibration#pcie}: the {@link PcieSweep}
 * and its {@link PcieFit}) and writes
 * {@code pcie.csv} and {@code pcie.md} to the output folder. Without CUDA it says why in one line
 * and exits 1.
 */
public final class PcieBench {

    private PcieBench() {}

    /** @return the exit code: 0 measured, 1 no device or CUDA failed */
    public static int run(PcieSweep.Settings settings, Path outputFolder, PrintWriter out, PrintWriter err) {
        CudaDevice device = CudaDevice.probe();
        if (!device.available()) {
            return fail(err, "PCIe not measured: " + device.description());
        }
        out.println("CUDA device: " + device.description());
        try {
            out.println(roundTrip(device.api().orElseThrow(), device.device()));
        } catch (CudaException | IllegalStateException e) {
            return fail(err, "bench pcie: " + e.getMessage());
        }
        out.println("sweep (" + settings.repeats() + " repeat" + (settings.repeats() == 1 ? "" : "s")
                + ", medians; first repeat shown):");
        PcieCalibration.Outcome outcome = Calibration.pcie(device, settings, line -> {
            out.println(line);
            out.flush();
        });
        if (!(outcome instanceof PcieCalibration.Measured measured)) {
            return fail(err, "bench pcie: " + ((PcieCalibration.NotMeasured) outcome).reason());
        }
        List<PcieSweep.Point> points = measured.points();
        String md = "# PCIe sweep\n\nCUDA device: " + device.description() + "\n\n" + PcieTables.markdown(points);
        if (measured.fit() != null) {
            String h2d = PcieTables.fitLine("H2D", measured.fit().hostToDevice());
            String d2h = PcieTables.fitLine("D2H", measured.fit().deviceToHost());
            out.println("fit " + h2d);
            out.println("fit " + d2h);
            md += "Fitted PCIe model (latency + bytes / bandwidth per copy, one FIFO engine per direction):\n\n- "
                    + h2d + "\n- " + d2h + "\n";
        } else {
            out.println("no fit: " + measured.fitFailure());
            md += "No fit: " + measured.fitFailure() + "\n";
        }
        out.println();
        out.print(PcieTables.markdown(points));
        try {
            java.nio.file.Files.createDirectories(outputFolder);
            AtomicFiles.writeString(outputFolder.resolve("pcie.csv"), PcieTables.csv(points));
            AtomicFiles.writeString(outputFolder.resolve("pcie.md"), md);
        } catch (IOException e) {
            return fail(err, "bench pcie: cannot write to " + outputFolder + ": " + e.getMessage());
        }
        out.println("wrote " + outputFolder.resolve("pcie.md") + " and pcie.csv");
        out.flush();
        return 0;
    }

    private static int fail(PrintWriter err, String line) {
        err.println("tierlab: " + line);
        err.flush();
        return 1;
    }

    /**
     * Copies one 2.25 MiB payload (a Qwen3-8B block of 16 tokens) to the device and back into another
     * buffer, and compares: the binding moves the right bytes before anything is timed.
     */
    static String roundTrip(CudaApi api, int device) {
        long bytes = 9L << 18;
        api.setDevice(device);
        long source = api.mallocHost(bytes);
        long back = api.mallocHost(bytes);
        long onDevice = api.malloc(bytes);
        try {
            BlockKey key = new BlockKey(0x5EED_0001L, 0x7E57_0002L);
            MemorySegment sourceBytes = MemorySegment.ofAddress(source).reinterpret(bytes);
            MemorySegment backBytes = MemorySegment.ofAddress(back).reinterpret(bytes);
            PayloadPattern.fill(sourceBytes, key, 0);
            backBytes.fill((byte) 0);
            check(api, "cudaMemcpy H2D", api.memcpy(onDevice, source, bytes, CudaApi.MEMCPY_HOST_TO_DEVICE));
            check(api, "cudaMemcpy D2H", api.memcpy(back, onDevice, bytes, CudaApi.MEMCPY_DEVICE_TO_HOST));
            if (!PayloadPattern.matches(backBytes, key, 0)) {
                throw new IllegalStateException("a 2.25 MiB payload copied to the GPU and back came back different");
            }
            return "round trip: 2.25 MiB host -> GPU -> host, every byte intact";
        } finally {
            api.free(onDevice);
            api.freeHost(back);
            api.freeHost(source);
        }
    }

    private static void check(CudaApi api, String call, int code) {
        if (code != CudaApi.SUCCESS) {
            throw new CudaException(call, code, api.errorName(code), api.errorString(code));
        }
    }
}
