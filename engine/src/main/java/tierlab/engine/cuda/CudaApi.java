package tierlab.engine.cuda;

/**
 * The part of the CUDA runtime API tierlab uses, as an interface so that the copy port's logic
 * (ordering, failure values, verification) is tested against a fake device; {@link CudaRuntime}
 * is the real binding. Pointers and handles ({@code void*}, {@code cudaStream_t},
 * {@code cudaEvent_t}) are native addresses in a {@code long}.
 *
 * <p>Setup calls throw {@link CudaException}; the calls of the copy path ({@link #memcpyAsync},
 * {@link #eventRecord}, {@link #eventQuery}) return the {@code cudaError_t} code, because a failed
 * copy is a value the model handles, not an exception.
 *
 * <p>Every constant below is read from the CUDA 13 headers (driver_types.h), never guessed; the
 * layout test compiles a C program against the headers and compares.
 */
public interface CudaApi {

    /** {@code cudaSuccess} (driver_types.h, enum cudaError). */
    int SUCCESS = 0;
    /** {@code cudaErrorInvalidValue}. */
    int ERROR_INVALID_VALUE = 1;
    /** {@code cudaErrorMemoryAllocation}. */
    int ERROR_MEMORY_ALLOCATION = 2;
    /** {@code cudaErrorInsufficientDriver}: no driver, or one older than the runtime. */
    int ERROR_INSUFFICIENT_DRIVER = 35;
    /** {@code cudaErrorNoDevice}. */
    int ERROR_NO_DEVICE = 100;
    /** {@code cudaErrorNotReady}: an event or stream has work still pending (not a failure). */
    int ERROR_NOT_READY = 600;
    /** {@code cudaErrorHostMemoryAlreadyRegistered}. */
    int ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712;

    /** {@code cudaMemcpyHostToDevice} (enum cudaMemcpyKind). */
    int MEMCPY_HOST_TO_DEVICE = 1;
    /** {@code cudaMemcpyDeviceToHost}. */
    int MEMCPY_DEVICE_TO_HOST = 2;

    /** {@code cudaStreamNonBlocking}: no implicit synchronisation with the legacy default stream. */
    int STREAM_NON_BLOCKING = 0x01;
    /** {@code cudaEventDefault}: an event that records timing (for the PCIe benchmark). */
    int EVENT_DEFAULT = 0x00;
    /** {@code cudaEventDisableTiming}: the cheapest event, for completion only. */
    int EVENT_DISABLE_TIMING = 0x02;
    /** {@code cudaHostRegisterDefault}. */
    int HOST_REGISTER_DEFAULT = 0x00;
    /** {@code cudaHostRegisterPortable}: pinned for every context, not only the current one. */
    int HOST_REGISTER_PORTABLE = 0x01;

    /** {@code cudaGetErrorName}: e.g. "cudaErrorNoDevice". */
    String errorName(int code);

    /** {@code cudaGetErrorString}: CUDA's sentence for the code. */
    String errorString(int code);

    int deviceCount();

    void setDevice(int device);

    /** The device's name (the first field of {@code struct cudaDeviceProp}). */
    String deviceName(int device);

    /** {@code cudaDeviceGetPCIBusId}: "0000:3b:00.0". */
    String pciBusId(int device);

    /** {@code cudaDriverGetVersion}: 1000 × major + 10 × minor (13000 for 13.0); 0 without a driver. */
    int driverVersion();

    int runtimeVersion();

    /** {@code cudaMemGetInfo}: free and total device memory in bytes. */
    long[] memoryInfo();

    long malloc(long bytes);

    void free(long devicePointer);

    long mallocHost(long bytes);

    void freeHost(long hostPointer);

    void hostRegister(long hostPointer, long bytes, int flags);

    void hostUnregister(long hostPointer);

    long streamCreate(int flags);

    void streamDestroy(long stream);

    int streamSynchronize(long stream);

    long eventCreate(int flags);

    void eventDestroy(long event);

    int eventRecord(long event, long stream);

    /** {@link #SUCCESS} when done, {@link #ERROR_NOT_READY} while pending, else the copy's error. */
    int eventQuery(long event);

    int eventSynchronize(long event);

    /** Milliseconds between two recorded, completed timing events. */
    float eventElapsedMs(long start, long end);

    int memcpyAsync(long destination, long source, long bytes, int kind, long stream);

    int memcpy(long destination, long source, long bytes, int kind);
}
