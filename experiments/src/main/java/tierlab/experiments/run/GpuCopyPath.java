package tierlab.experiments.run;

import java.util.function.Supplier;
import tierlab.engine.PinnedArena;
import tierlab.engine.cuda.CudaCopyPort;
import tierlab.engine.cuda.CudaDevice;
import tierlab.model.geometry.Geometry;

/**
 * How a live run moves KV between its L1 arena and the GPU, chosen by {@code live.gpu}
 * ({@code auto}, {@code cuda}, {@code host}) and {@code live.verify}: the CUDA copy port over the
 * arena, or host buffers and why. {@code tierlab run} (RunExecutor) and {@code tierlab validate}
 * open the GPU side through here, so the two mean the same by the same words.
 */
public final class GpuCopyPath {

    /**
     * The opened copy path.
     *
     * @param port        the CUDA copy port (the caller's to close, after the live runtime), or null for host buffers
     * @param description "cuda: DEVICE; PINNING; loads verified on the GPU side" or "host buffers: WHY"
     */
    public record Opened(CudaCopyPort port, String description) implements AutoCloseable {
        public boolean cuda() {
            return port != null;
        }

        /** Closes the CUDA port (it waits for copies in flight, then unregisters L1); nothing for host buffers. */
        @Override
        public void close() {
            if (port != null) {
                port.close();
            }
        }
    }

    private GpuCopyPath() {
    }

    /**
     * Why a run that asks for CUDA cannot have it, or null when it can or does not ask; the device
     * is only probed when the run asks for CUDA.
     */
    public static String refusal(String gpu, Supplier<CudaDevice> device) {
        if (!gpu.equals(RunConfig.GPU_CUDA) || device.get().available()) {
            return null;
        }
        return "live.gpu is cuda but there is no usable CUDA device: " + device.get().description();
    }

    /**
     * Opens the GPU side over {@code arena}: CUDA when {@code gpu} is not {@code host} and the device
     * is usable, else host buffers with the reason. A run that asks for {@code cuda} has been refused
     * by {@link #refusal} before its arena was allocated.
     */
    public static Opened open(String gpu, boolean verify, Supplier<CudaDevice> device, PinnedArena arena, Geometry geometry) {
        if (gpu.equals(RunConfig.GPU_HOST)) {
            return new Opened(null, RunFacts.HOST_BUFFERS + ": live.gpu is host");
        }
        CudaDevice cuda = device.get();
        if (!cuda.available()) {
            return new Opened(null, RunFacts.HOST_BUFFERS + ": " + cuda.description());
        }
        CudaCopyPort port = new CudaCopyPort(cuda.api().orElseThrow(), cuda.device(), arena, geometry.laneBytes(), geometry.tp(),
                verify);
        return new Opened(port, "cuda: " + cuda.description() + "; " + port.pinning()
                + (verify ? "; loads verified on the GPU side" : "; not verified (live.verify is false)"));
    }

    /** A supplier that probes for a CUDA device on its first call and answers the same device after. */
    public static Supplier<CudaDevice> probedOnce() {
        return new Supplier<>() {
            private CudaDevice device;

            @Override
            public synchronized CudaDevice get() {
                if (device == null) {
                    device = CudaDevice.probe();
                }
                return device;
            }
        };
    }
}
