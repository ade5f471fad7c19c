package tierlab.engine.cuda.compute;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import tierlab.engine.cuda.CudaApi;
import tierlab.engine.cuda.CudaDevice;
import tierlab.engine.cuda.CudaRuntime;

/**
 * Everything the compute path opens on one device: the runtime (the copy path's binding) and its
 * extra calls, the driver in the primary context, NVRTC, cuBLAS, the device's compute capability and
 * multiprocessors, and the kernels compiled per (head dimension, query group). Opening it is the test
 * of a host: {@link #open} says in one line why it cannot, as {@link CudaDevice#probe} does.
 */
public final class GpuContext {

    /** The context, or why there is none. */
    public record Opened(GpuContext context, String reason) {
        public boolean available() {
            return context != null;
        }
    }

    private final CudaApi runtime;
    private final CudaStreamCalls calls;
    private final CudaDriver driver;
    private final Nvrtc nvrtc;
    private final Path cublas;
    private final int device;
    private final int ccMajor;
    private final int ccMinor;
    private final int multiprocessors;
    private final String description;
    private final Map<String, KernelModule> modules = new TreeMap<>();

    private GpuContext(CudaDevice cuda, Path cudart, ComputeLibraries.Found libraries) {
        runtime = cuda.api().orElseThrow();
        device = cuda.device();
        runtime.setDevice(device);
        runtime.free(0); // any runtime call that needs the context makes the primary context now
        calls = CudaStreamCalls.load(cudart);
        driver = CudaDriver.open(ComputeLibraries.DRIVER, device);
        libraries.nvrtcBuiltins().ifPresent(Downcalls::load); // NVRTC loads it by name: make that name resolve
        nvrtc = Nvrtc.load(libraries.nvrtc().orElseThrow());
        Downcalls.load(libraries.cublasLt().orElseThrow()); // libcublas needs it by name
        cublas = libraries.cublas().orElseThrow();
        ccMajor = calls.attribute(CudaStreamCalls.ATTR_CC_MAJOR, device);
        ccMinor = calls.attribute(CudaStreamCalls.ATTR_CC_MINOR, device);
        multiprocessors = calls.attribute(CudaStreamCalls.ATTR_MULTIPROCESSORS, device);
        description = cuda.description() + "; compute capability " + ccMajor + "." + ccMinor + ", " + multiprocessors
                + " multiprocessors; " + nvrtc.library().getFileName() + ", " + cublas.getFileName();
    }

    /** Opens the compute path on {@code cuda}'s device, or says why it cannot. */
    public static Opened open(CudaDevice cuda) {
        if (!cuda.available()) {
            return new Opened(null, "no usable CUDA device: " + cuda.description());
        }
        if (!(cuda.api().get() instanceof CudaRuntime runtime)) {
            return new Opened(null, "the CUDA compute path needs the real libcudart binding");
        }
        ComputeLibraries.Found libraries = ComputeLibraries.find(runtime.library());
        if (libraries.missing().isPresent()) {
            return new Opened(null, libraries.missing().get());
        }
        try {
            return new Opened(new GpuContext(cuda, runtime.library(), libraries), null);
        } catch (RuntimeException e) {
            return new Opened(null, "the CUDA compute path did not open: " + e.getMessage());
        }
    }

    /** The kernels for one head dimension and query group, compiled on first use. */
    public synchronized KernelModule kernels(int headDim, int group) {
        String key = headDim + "/" + group;
        KernelModule module = modules.get(key);
        if (module == null) {
            module = KernelModule.compileAndLoad(nvrtc, driver, ccMajor, ccMinor, headDim, group);
            modules.put(key, module);
        }
        return module;
    }

    public Cublas openCublas(long stream, long workspace, long workspaceBytes) {
        return Cublas.open(cublas, stream, workspace, workspaceBytes);
    }

    public CudaApi runtime() {
        return runtime;
    }

    public CudaStreamCalls calls() {
        return calls;
    }

    public CudaDriver driver() {
        return driver;
    }

    public int device() {
        return device;
    }

    public int multiprocessors() {
        return multiprocessors;
    }

    /** The device, its compute capability and the libraries, in one line. */
    public String description() {
        return description;
    }
}
