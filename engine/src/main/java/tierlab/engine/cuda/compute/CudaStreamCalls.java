package tierlab.engine.cuda.compute;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * The runtime calls the compute path needs beyond the copy path's binding ({@code tierlab.engine.cuda.CudaRuntime}),
 * from the same libcudart (cuda_runtime_api.h, CUDA 13): device attributes, device-to-device copies and
 * fills, and stream capture into CUDA graphs. The header renames {@code cudaStreamBeginCapture} and
 * {@code cudaMemsetAsync}/{@code cudaGraphLaunch} only under per-thread default streams; the plain symbols are bound.
 */
public final class CudaStreamCalls {

    /** {@code cudaDevAttrComputeCapabilityMajor}, {@code ...Minor}, {@code cudaDevAttrMultiProcessorCount} (driver_types.h). */
    public static final int ATTR_CC_MAJOR = 75;
    public static final int ATTR_CC_MINOR = 76;
    public static final int ATTR_MULTIPROCESSORS = 16;
    /** {@code cudaMemcpyDeviceToDevice} (enum cudaMemcpyKind). */
    public static final int MEMCPY_DEVICE_TO_DEVICE = 3;
    /** {@code cudaStreamCaptureModeThreadLocal} (enum cudaStreamCaptureMode). */
    static final int CAPTURE_THREAD_LOCAL = 1;

    private final MethodHandle deviceGetAttribute;
    private final MethodHandle memsetAsync;
    private final MethodHandle beginCapture;
    private final MethodHandle endCapture;
    private final MethodHandle graphInstantiate;
    private final MethodHandle graphLaunch;
    private final MethodHandle graphExecDestroy;
    private final MethodHandle graphDestroy;
    private final MethodHandle getLastError;

    private CudaStreamCalls(Downcalls lib) {
        // cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
        deviceGetAttribute = lib.bind("cudaDeviceGetAttribute", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
        // cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
        memsetAsync = lib.bind("cudaMemsetAsync", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG));
        // cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
        beginCapture = lib.bind("cudaStreamBeginCapture", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT));
        // cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
        endCapture = lib.bind("cudaStreamEndCapture", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        // cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags)
        graphInstantiate = lib.bind("cudaGraphInstantiate", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
        // cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
        graphLaunch = lib.bind("cudaGraphLaunch", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
        // cudaError_t cudaGraphExecDestroy(cudaGraphExec_t); cudaGraphDestroy(cudaGraph_t)
        graphExecDestroy = lib.bind("cudaGraphExecDestroy", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
        graphDestroy = lib.bind("cudaGraphDestroy", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
        // cudaError_t cudaGetLastError(void): clears the sticky-free error a failed capture leaves
        getLastError = lib.bind("cudaGetLastError", FunctionDescriptor.of(JAVA_INT));
    }

    public static CudaStreamCalls load(Path cudart) {
        return new CudaStreamCalls(Downcalls.load(cudart));
    }

    public int attribute(int attribute, int device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check("cudaDeviceGetAttribute(" + attribute + ")", (int) deviceGetAttribute.invokeExact(out, attribute, device));
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    public void memsetAsync(long devicePointer, int value, long bytes, long stream) {
        try {
            check("cudaMemsetAsync", (int) memsetAsync.invokeExact(devicePointer, value, bytes, stream));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** Starts capturing {@code stream}; returns the runtime's error code (0: capturing). */
    public int beginCapture(long stream) {
        try {
            return (int) beginCapture.invokeExact(stream, CAPTURE_THREAD_LOCAL);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * Ends the capture and instantiates it: the executable graph's handle, or 0 when the capture or the
     * instantiation failed (the step then runs eagerly; the error is cleared).
     */
    public long endCaptureAndInstantiate(long stream) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment graph = arena.allocate(ADDRESS);
            int ended = (int) endCapture.invokeExact(stream, graph);
            long graphHandle = graph.get(JAVA_LONG, 0);
            if (ended != 0 || graphHandle == 0) {
                int cleared = (int) getLastError.invokeExact();
                return 0;
            }
            MemorySegment exec = arena.allocate(ADDRESS);
            int made = (int) graphInstantiate.invokeExact(exec, graphHandle, 0L);
            int destroyed = (int) graphDestroy.invokeExact(graphHandle);
            if (made != 0) {
                int cleared = (int) getLastError.invokeExact();
                return 0;
            }
            return exec.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    public void graphLaunch(long graphExec, long stream) {
        try {
            check("cudaGraphLaunch", (int) graphLaunch.invokeExact(graphExec, stream));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    public void graphDestroy(long graphExec) {
        try {
            int ignored = (int) graphExecDestroy.invokeExact(graphExec);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private static void check(String call, int code) {
        if (code != 0) {
            throw new IllegalStateException(call + " failed: cudaError " + code);
        }
    }
}
