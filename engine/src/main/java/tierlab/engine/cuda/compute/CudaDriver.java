package tierlab.engine.cuda.compute;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * libcuda, the driver API (CUDA 13's cuda.h), for what the runtime does not load: a CUBIN module,
 * its functions, and kernel launches. It works in the device's primary context, the one libcudart
 * already made current ({@code cuDevicePrimaryCtxRetain}, then {@code cuCtxSetCurrent} on each thread
 * that launches). {@code CUresult} is a 4-byte enum ({@code CUDA_SUCCESS} 0); {@code CUdevice} an int;
 * contexts, modules, functions and streams are pointers (8 bytes; a runtime {@code cudaStream_t} is a
 * {@code CUstream}). cuda.h maps {@code cuLaunchKernel} to a {@code _ptsz} symbol only under per-thread
 * default streams, which tierlab does not use.
 */
public final class CudaDriver {

    private final MethodHandle getErrorName;
    private final MethodHandle setCurrent;
    private final MethodHandle moduleLoadData;
    private final MethodHandle moduleGetFunction;
    private final MethodHandle launchKernel;
    private final long context;

    private CudaDriver(Downcalls lib, int device) {
        // CUresult cuGetErrorName(CUresult error, const char **pStr)
        getErrorName = lib.bind("cuGetErrorName", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        // CUresult cuInit(unsigned int Flags)
        MethodHandle init = lib.bind("cuInit", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        // CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
        MethodHandle retain = lib.bind("cuDevicePrimaryCtxRetain", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        // CUresult cuCtxSetCurrent(CUcontext ctx)
        setCurrent = lib.bind("cuCtxSetCurrent", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
        // CUresult cuModuleLoadData(CUmodule *module, const void *image)
        moduleLoadData = lib.bind("cuModuleLoadData", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        // CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
        moduleGetFunction = lib.bind("cuModuleGetFunction", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
        // CUresult cuLaunchKernel(CUfunction f, unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
        //                         unsigned sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)
        launchKernel = lib.bind("cuLaunchKernel", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT,
                JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            check("cuInit", (int) init.invokeExact(0));
            MemorySegment out = arena.allocate(ADDRESS);
            check("cuDevicePrimaryCtxRetain(" + device + ")", (int) retain.invokeExact(out, device));
            context = out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        makeCurrent();
    }

    /** Loads the driver library ({@code libcuda.so.1}, where the dynamic loader finds it) for {@code device}. */
    public static CudaDriver open(Path library, int device) {
        return new CudaDriver(Downcalls.load(library), device);
    }

    /** Makes the primary context current on the calling thread (once per thread that launches). */
    public void makeCurrent() {
        try {
            check("cuCtxSetCurrent", (int) setCurrent.invokeExact(context));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** Loads a CUBIN image; returns the module handle. */
    public long loadModule(byte[] cubin) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment image = arena.allocate(cubin.length + 1L, 16);
            MemorySegment.copy(cubin, 0, image, JAVA_BYTE, 0, cubin.length);
            MemorySegment out = arena.allocate(ADDRESS);
            check("cuModuleLoadData", (int) moduleLoadData.invokeExact(out, image));
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    public long function(long module, String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check("cuModuleGetFunction(" + name + ")", (int) moduleGetFunction.invokeExact(out, module, arena.allocateFrom(name)));
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** Launches {@code function}; {@code params} is the {@code void**} array of pointers to each argument. */
    public void launch(String name, long function, int gridX, int gridY, int gridZ, int block, int sharedBytes,
                       long stream, MemorySegment params) {
        try {
            int code = (int) launchKernel.invokeExact(function, gridX, gridY, gridZ, block, 1, 1, sharedBytes, stream,
                    params, MemorySegment.NULL);
            check("cuLaunchKernel(" + name + ", grid " + gridX + "x" + gridY + "x" + gridZ + ", block " + block + ")", code);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private void check(String call, int code) {
        if (code != 0) {
            throw new IllegalStateException(call + " failed: " + errorName(code) + " (" + code + ")");
        }
    }

    private String errorName(int code) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int got = (int) getErrorName.invokeExact(code, out);
            String name = got == 0 ? Downcalls.cString(out.get(ADDRESS, 0)) : null;
            return name == null ? "CUresult " + code : name;
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
