package tierlab.engine.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Optional;

/**
 * libcudart bound through the FFM linker: one downcall per runtime API function of
 * {@link CudaApi}, with the C signatures of CUDA 13's cuda_runtime_api.h. On x86-64 Linux
 * {@code CUDARTAPI} is empty, so every function uses the System V calling convention the
 * linker's default implements; {@code cudaError_t} and {@code enum cudaMemcpyKind} are C enums
 * (4-byte {@code int}); {@code size_t}, pointers, {@code cudaStream_t} and {@code cudaEvent_t}
 * are 8 bytes. The layout test checks these sizes against the headers with gcc.
 *
 * <p>The header maps {@code cudaMemcpyAsync} to {@code cudaMemcpyAsync_ptsz} only when compiled
 * with per-thread default streams; tierlab binds the plain symbols (legacy default stream, which
 * its non-blocking streams never synchronise with).
 */
@SuppressWarnings("restricted") // this is the binding: its downcalls are the point
public final class CudaRuntime implements CudaApi {

    /** More than {@code sizeof(struct cudaDeviceProp)} of every CUDA release (1008 bytes in CUDA 13; the test checks). */
    static final long DEVICE_PROP_BUFFER_BYTES = 16384;
    /** {@code char name[256]} is the first field of {@code struct cudaDeviceProp} in every release. */
    static final int DEVICE_NAME_BYTES = 256;

    private static final Linker LINKER = Linker.nativeLinker();

    private final Path library;
    private final MethodHandle getErrorName;
    private final MethodHandle getErrorString;
    private final MethodHandle getDeviceCount;
    private final MethodHandle setDevice;
    private final MethodHandle getDeviceProperties;
    private final MethodHandle deviceGetPciBusId;
    private final MethodHandle driverGetVersion;
    private final MethodHandle runtimeGetVersion;
    private final MethodHandle memGetInfo;
    private final MethodHandle malloc;
    private final MethodHandle free;
    private final MethodHandle mallocHost;
    private final MethodHandle freeHost;
    private final MethodHandle hostRegister;
    private final MethodHandle hostUnregister;
    private final MethodHandle streamCreateWithFlags;
    private final MethodHandle streamDestroy;
    private final MethodHandle streamSynchronize;
    private final MethodHandle eventCreateWithFlags;
    private final MethodHandle eventDestroy;
    private final MethodHandle eventRecord;
    private final MethodHandle eventQuery;
    private final MethodHandle eventSynchronize;
    private final MethodHandle eventElapsedTime;
    private final MethodHandle memcpyAsync;
    private final MethodHandle memcpy;

    private CudaRuntime(Path library, SymbolLookup lookup) {
        this.library = library;
        FunctionDescriptor intOfPointer = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        FunctionDescriptor intOfLong = FunctionDescriptor.of(JAVA_INT, JAVA_LONG);
        // const char* cudaGetErrorName(cudaError_t error); cudaGetErrorString likewise
        getErrorName = bind(lookup, "cudaGetErrorName", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        getErrorString = bind(lookup, "cudaGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        // cudaError_t cudaGetDeviceCount(int *count)
        getDeviceCount = bind(lookup, "cudaGetDeviceCount", intOfPointer);
        // cudaError_t cudaSetDevice(int device)
        setDevice = bind(lookup, "cudaSetDevice", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        // cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device); CUDA 12's header
        // renames it cudaGetDeviceProperties_v2 (a larger struct); both start with char name[256].
        getDeviceProperties = bind(lookup, lookup.find("cudaGetDeviceProperties_v2").isPresent()
                ? "cudaGetDeviceProperties_v2" : "cudaGetDeviceProperties", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        // cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
        deviceGetPciBusId = bind(lookup, "cudaDeviceGetPCIBusId", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
        // cudaError_t cudaDriverGetVersion(int *driverVersion); cudaRuntimeGetVersion likewise
        driverGetVersion = bind(lookup, "cudaDriverGetVersion", intOfPointer);
        runtimeGetVersion = bind(lookup, "cudaRuntimeGetVersion", intOfPointer);
        // cudaError_t cudaMemGetInfo(size_t *free, size_t *total)
        memGetInfo = bind(lookup, "cudaMemGetInfo", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        // cudaError_t cudaMalloc(void **devPtr, size_t size); cudaMallocHost(void **ptr, size_t size)
        malloc = bind(lookup, "cudaMalloc", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
        mallocHost = bind(lookup, "cudaMallocHost", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
        // cudaError_t cudaFree(void *devPtr); cudaFreeHost(void *ptr); cudaHostUnregister(void *ptr)
        free = bind(lookup, "cudaFree", intOfLong);
        freeHost = bind(lookup, "cudaFreeHost", intOfLong);
        hostUnregister = bind(lookup, "cudaHostUnregister", intOfLong);
        // cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
        hostRegister = bind(lookup, "cudaHostRegister", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
        // cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
        streamCreateWithFlags = bind(lookup, "cudaStreamCreateWithFlags", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        // cudaError_t cudaStreamDestroy(cudaStream_t stream); cudaStreamSynchronize likewise
        streamDestroy = bind(lookup, "cudaStreamDestroy", intOfLong);
        streamSynchronize = bind(lookup, "cudaStreamSynchronize", intOfLong);
        // cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
        eventCreateWithFlags = bind(lookup, "cudaEventCreateWithFlags", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        // cudaError_t cudaEventDestroy(cudaEvent_t); cudaEventQuery; cudaEventSynchronize
        eventDestroy = bind(lookup, "cudaEventDestroy", intOfLong);
        eventQuery = bind(lookup, "cudaEventQuery", intOfLong);
        eventSynchronize = bind(lookup, "cudaEventSynchronize", intOfLong);
        // cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
        eventRecord = bind(lookup, "cudaEventRecord", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
        // cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
        eventElapsedTime = bind(lookup, "cudaEventElapsedTime", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
        // cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
        memcpyAsync = bind(lookup, "cudaMemcpyAsync",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG));
        // cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
        memcpy = bind(lookup, "cudaMemcpy", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT));
    }

    /**
     * Loads the library at {@code library}.
     *
     * @throws IllegalArgumentException when it cannot be loaded or lacks a symbol (the message says which)
     */
    public static CudaRuntime load(Path library) {
        SymbolLookup lookup;
        try {
            lookup = SymbolLookup.libraryLookup(library, Arena.global());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot load " + library + ": " + e.getMessage(), e);
        }
        return new CudaRuntime(library, lookup);
    }

    /** The runtime found by {@link CudaLibrary#find()}, or empty. */
    public static Optional<CudaRuntime> loadFound(CudaLibrary.Lookup lookup) {
        return lookup.library().map(CudaRuntime::load);
    }

    public Path library() {
        return library;
    }

    private static MethodHandle bind(SymbolLookup lookup, String name, FunctionDescriptor descriptor) {
        MemorySegment symbol = lookup.find(name)
                .orElseThrow(() -> new IllegalArgumentException("libcudart has no symbol " + name));
        return LINKER.downcallHandle(symbol, descriptor);
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    private void check(String call, int code) {
        if (code != SUCCESS) {
            throw new CudaException(call, code, errorName(code), errorString(code));
        }
    }

    private static String cString(MemorySegment pointer) {
        return pointer.equals(MemorySegment.NULL) ? null : pointer.reinterpret(4096).getString(0);
    }

    @Override
    public String errorName(int code) {
        try {
            String name = cString((MemorySegment) getErrorName.invokeExact(code));
            return name == null ? "cudaError " + code : name;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public String errorString(int code) {
        try {
            String text = cString((MemorySegment) getErrorString.invokeExact(code));
            return text == null ? "unknown error " + code : text;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private int intOut(String call, MethodHandle handle) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check(call, (int) handle.invokeExact(out));
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int deviceCount() {
        return intOut("cudaGetDeviceCount", getDeviceCount);
    }

    @Override
    public void setDevice(int device) {
        try {
            check("cudaSetDevice(" + device + ")", (int) setDevice.invokeExact(device));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public String deviceName(int device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment prop = arena.allocate(DEVICE_PROP_BUFFER_BYTES, 8);
            check("cudaGetDeviceProperties(" + device + ")", (int) getDeviceProperties.invokeExact(prop, device));
            return prop.asSlice(0, DEVICE_NAME_BYTES).getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public String pciBusId(int device) {
        try (Arena arena = Arena.ofConfined()) {
            // "domain:bus:device.function" is at most 13 characters; CUDA's docs ask for 13 or more.
            MemorySegment text = arena.allocate(64);
            check("cudaDeviceGetPCIBusId(" + device + ")", (int) deviceGetPciBusId.invokeExact(text, 64, device));
            return text.getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int driverVersion() {
        return intOut("cudaDriverGetVersion", driverGetVersion);
    }

    @Override
    public int runtimeVersion() {
        return intOut("cudaRuntimeGetVersion", runtimeGetVersion);
    }

    @Override
    public long[] memoryInfo() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment free = arena.allocate(JAVA_LONG);
            MemorySegment total = arena.allocate(JAVA_LONG);
            check("cudaMemGetInfo", (int) memGetInfo.invokeExact(free, total));
            return new long[] {free.get(JAVA_LONG, 0), total.get(JAVA_LONG, 0)};
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private long pointerOut(String call, MethodHandle handle, long bytes) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check(call + "(" + bytes + " bytes)", (int) handle.invokeExact(out, bytes));
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long malloc(long bytes) {
        return pointerOut("cudaMalloc", malloc, bytes);
    }

    @Override
    public void free(long devicePointer) {
        try {
            check("cudaFree", (int) free.invokeExact(devicePointer));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long mallocHost(long bytes) {
        return pointerOut("cudaMallocHost", mallocHost, bytes);
    }

    @Override
    public void freeHost(long hostPointer) {
        try {
            check("cudaFreeHost", (int) freeHost.invokeExact(hostPointer));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void hostRegister(long hostPointer, long bytes, int flags) {
        try {
            check("cudaHostRegister(" + bytes + " bytes)", (int) hostRegister.invokeExact(hostPointer, bytes, flags));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void hostUnregister(long hostPointer) {
        try {
            check("cudaHostUnregister", (int) hostUnregister.invokeExact(hostPointer));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private long handleOut(String call, MethodHandle handle, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check(call, (int) handle.invokeExact(out, flags));
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long streamCreate(int flags) {
        return handleOut("cudaStreamCreateWithFlags", streamCreateWithFlags, flags);
    }

    @Override
    public void streamDestroy(long stream) {
        try {
            check("cudaStreamDestroy", (int) streamDestroy.invokeExact(stream));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int streamSynchronize(long stream) {
        try {
            return (int) streamSynchronize.invokeExact(stream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long eventCreate(int flags) {
        return handleOut("cudaEventCreateWithFlags", eventCreateWithFlags, flags);
    }

    @Override
    public void eventDestroy(long event) {
        try {
            check("cudaEventDestroy", (int) eventDestroy.invokeExact(event));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int eventRecord(long event, long stream) {
        try {
            return (int) eventRecord.invokeExact(event, stream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int eventQuery(long event) {
        try {
            return (int) eventQuery.invokeExact(event);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int eventSynchronize(long event) {
        try {
            return (int) eventSynchronize.invokeExact(event);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public float eventElapsedMs(long start, long end) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ms = arena.allocate(JAVA_FLOAT);
            check("cudaEventElapsedTime", (int) eventElapsedTime.invokeExact(ms, start, end));
            return ms.get(JAVA_FLOAT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int memcpyAsync(long destination, long source, long bytes, int kind, long stream) {
        try {
            return (int) memcpyAsync.invokeExact(destination, source, bytes, kind, stream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int memcpy(long destination, long source, long bytes, int kind) {
        try {
            return (int) memcpy.invokeExact(destination, source, bytes, kind);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
