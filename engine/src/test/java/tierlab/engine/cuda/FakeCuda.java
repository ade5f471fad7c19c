package tierlab.engine.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A CUDA device in host memory, for the copy port's logic without a GPU. "Device" allocations are
 * native host memory; each stream is a FIFO of copies and event records that runs either at once
 * ({@code automatic}) or when the test says ({@link #runNext}), so completion order can be staged.
 * Failures are injected per call. Tracks every allocation, registration, stream and event, so a
 * test can check that closing the port gave everything back. Thread-safe (the port's completion
 * thread queries events while the test thread submits).
 */
public final class FakeCuda implements CudaApi {

    /** A device-side fault the fake can report from an event: not among the binding's constants. */
    static final int ERROR_ILLEGAL_ADDRESS = 700;

    private sealed interface Work permits Copy, Record {}

    private record Copy(long destination, long source, long bytes) implements Work {}

    private record Record(long event) implements Work {}

    private final Arena memory = Arena.ofShared();
    private final boolean automatic;
    private final Map<Long, ArrayDeque<Work>> streams = new HashMap<>();
    /** Events recorded and not reached yet; an event reached is done (or failed, if listed in failing). */
    private final Set<Long> pendingEvents = new HashSet<>();
    private final Map<Long, Integer> failingEvents = new HashMap<>();
    private final Set<Long> liveEvents = new HashSet<>();
    private final Set<Long> deviceAllocations = new HashSet<>();
    private final Set<Long> hostAllocations = new HashSet<>();
    private final Set<Long> registered = new HashSet<>();
    private long nextHandle = 0x1000;
    private int failNextMemcpyWith = SUCCESS;
    /** memcpyAsync calls to let through before the one that fails with failNextMemcpyWith. */
    private int memcpysBeforeFailure;
    /** What was queued on each stream, in order: {@link Queued} copies and event records (the event's handle). */
    private final Map<Long, List<Queued>> queuedLog = new HashMap<>();
    private int failNextEventWith = SUCCESS;
    private boolean refuseRegistration;
    private boolean failNextMalloc;
    private boolean throwOnNextQuery;
    final List<String> calls = new ArrayList<>();

    public FakeCuda(boolean automatic) {
        this.automatic = automatic;
    }

    synchronized void failNextMemcpy(int code) {
        failMemcpyAfter(0, code);
    }

    /** Lets {@code calls} more memcpyAsync calls through, then fails the next one with {@code code}. */
    synchronized void failMemcpyAfter(int calls, int code) {
        memcpysBeforeFailure = calls;
        failNextMemcpyWith = code;
    }

    /**
     * One piece of work as it was queued on a stream: a copy ({@code event} 0) or an event record
     * ({@code event} its handle, the rest 0).
     */
    record Queued(long destination, long source, long bytes, int kind, long event) {
        boolean isEvent() {
            return event != 0;
        }
    }

    /** Everything queued on {@code stream} so far, in order (copies and event records). */
    synchronized List<Queued> queued(long stream) {
        return List.copyOf(queuedLog.getOrDefault(stream, List.of()));
    }

    synchronized void failNextEvent(int code) {
        failNextEventWith = code;
    }

    /** The next cudaEventQuery throws, as a binding failure would (not a CUDA error code). */
    synchronized void throwOnNextQuery() {
        throwOnNextQuery = true;
    }

    synchronized void failNextMalloc() {
        failNextMalloc = true;
    }

    synchronized void refuseRegistration() {
        refuseRegistration = true;
    }

    /** Runs the next piece of work queued on {@code stream}; false when there is none. */
    synchronized boolean runNext(long stream) {
        Work work = streams.get(stream).poll();
        if (work == null) {
            return false;
        }
        execute(work);
        return true;
    }

    synchronized void runAll(long stream) {
        while (runNext(stream)) {
            // one at a time, in order
        }
    }

    /** The streams created so far, in creation order (the port creates H2D first, then D2H). */
    synchronized List<Long> streamHandles() {
        return streams.keySet().stream().sorted().toList();
    }

    private void execute(Work work) {
        switch (work) {
            case Copy copy -> MemorySegment.copy(MemorySegment.ofAddress(copy.source()).reinterpret(copy.bytes()), 0,
                    MemorySegment.ofAddress(copy.destination()).reinterpret(copy.bytes()), 0, copy.bytes());
            case Record record -> pendingEvents.remove(record.event());
        }
    }

    public synchronized boolean leaksNothing() {
        return deviceAllocations.isEmpty() && hostAllocations.isEmpty() && registered.isEmpty() && streams.isEmpty()
                && liveEvents.isEmpty();
    }

    public synchronized String leftovers() {
        return "device " + deviceAllocations.size() + ", host " + hostAllocations.size() + ", registered " + registered.size()
                + ", streams " + streams.size() + ", events " + liveEvents.size();
    }

    synchronized boolean isRegistered(long address) {
        return registered.contains(address);
    }

    @Override
    public String errorName(int code) {
        return switch (code) {
            case SUCCESS -> "cudaSuccess";
            case ERROR_INVALID_VALUE -> "cudaErrorInvalidValue";
            case ERROR_MEMORY_ALLOCATION -> "cudaErrorMemoryAllocation";
            case ERROR_NOT_READY -> "cudaErrorNotReady";
            case ERROR_HOST_MEMORY_ALREADY_REGISTERED -> "cudaErrorHostMemoryAlreadyRegistered";
            case ERROR_ILLEGAL_ADDRESS -> "cudaErrorIllegalAddress";
            default -> "cudaErrorUnknown";
        };
    }

    @Override
    public String errorString(int code) {
        return "fake error " + code;
    }

    private void fail(String call, int code) {
        throw new CudaException(call, code, errorName(code), errorString(code));
    }

    @Override
    public int deviceCount() {
        return 1;
    }

    @Override
    public synchronized void setDevice(int device) {
        calls.add("setDevice " + device + " on " + Thread.currentThread().getName());
    }

    @Override
    public String deviceName(int device) {
        return "Fake GPU";
    }

    @Override
    public String pciBusId(int device) {
        return "0000:00:00.0";
    }

    @Override
    public int driverVersion() {
        return 13000;
    }

    @Override
    public int runtimeVersion() {
        return 13000;
    }

    @Override
    public long[] memoryInfo() {
        return new long[] {1L << 30, 1L << 30};
    }

    @Override
    public synchronized long malloc(long bytes) {
        if (failNextMalloc) {
            failNextMalloc = false;
            fail("cudaMalloc", ERROR_MEMORY_ALLOCATION);
        }
        long address = memory.allocate(bytes, 256).address();
        deviceAllocations.add(address);
        return address;
    }

    @Override
    public synchronized void free(long devicePointer) {
        if (!deviceAllocations.remove(devicePointer)) {
            fail("cudaFree", ERROR_INVALID_VALUE);
        }
    }

    @Override
    public synchronized long mallocHost(long bytes) {
        long address = memory.allocate(bytes, 4096).address();
        hostAllocations.add(address);
        return address;
    }

    @Override
    public synchronized void freeHost(long hostPointer) {
        if (!hostAllocations.remove(hostPointer)) {
            fail("cudaFreeHost", ERROR_INVALID_VALUE);
        }
    }

    @Override
    public synchronized void hostRegister(long hostPointer, long bytes, int flags) {
        if (refuseRegistration) {
            fail("cudaHostRegister", ERROR_INVALID_VALUE);
        }
        if (!registered.add(hostPointer)) {
            fail("cudaHostRegister", ERROR_HOST_MEMORY_ALREADY_REGISTERED);
        }
    }

    @Override
    public synchronized void hostUnregister(long hostPointer) {
        if (!registered.remove(hostPointer)) {
            fail("cudaHostUnregister", ERROR_INVALID_VALUE);
        }
    }

    @Override
    public synchronized long streamCreate(int flags) {
        long handle = nextHandle++;
        streams.put(handle, new ArrayDeque<>());
        return handle;
    }

    @Override
    public synchronized void streamDestroy(long stream) {
        if (streams.remove(stream) == null) {
            fail("cudaStreamDestroy", ERROR_INVALID_VALUE);
        }
    }

    @Override
    public synchronized int streamSynchronize(long stream) {
        runAll(stream);
        return SUCCESS;
    }

    @Override
    public synchronized long eventCreate(int flags) {
        long handle = nextHandle++;
        liveEvents.add(handle);
        return handle;
    }

    @Override
    public synchronized void eventDestroy(long event) {
        if (!liveEvents.remove(event)) {
            fail("cudaEventDestroy", ERROR_INVALID_VALUE);
        }
    }

    @Override
    public synchronized int eventRecord(long event, long stream) {
        pendingEvents.add(event);
        failingEvents.remove(event);
        if (failNextEventWith != SUCCESS) {
            failingEvents.put(event, failNextEventWith);
            failNextEventWith = SUCCESS;
        }
        streams.get(stream).add(new Record(event));
        queuedLog.computeIfAbsent(stream, s -> new ArrayList<>()).add(new Queued(0, 0, 0, 0, event));
        if (automatic) {
            runAll(stream);
        }
        return SUCCESS;
    }

    @Override
    public synchronized int eventQuery(long event) {
        if (throwOnNextQuery) {
            throwOnNextQuery = false;
            throw new IllegalStateException("the fake binding broke");
        }
        if (pendingEvents.contains(event)) {
            return ERROR_NOT_READY;
        }
        return failingEvents.getOrDefault(event, SUCCESS);
    }

    @Override
    public synchronized int eventSynchronize(long event) {
        return eventQuery(event);
    }

    @Override
    public float eventElapsedMs(long start, long end) {
        return 0;
    }

    @Override
    public synchronized int memcpyAsync(long destination, long source, long bytes, int kind, long stream) {
        if (failNextMemcpyWith != SUCCESS && memcpysBeforeFailure-- == 0) {
            int code = failNextMemcpyWith;
            failNextMemcpyWith = SUCCESS;
            return code;
        }
        streams.get(stream).add(new Copy(destination, source, bytes));
        queuedLog.computeIfAbsent(stream, s -> new ArrayList<>()).add(new Queued(destination, source, bytes, kind, 0));
        return SUCCESS;
    }

    @Override
    public synchronized int memcpy(long destination, long source, long bytes, int kind) {
        execute(new Copy(destination, source, bytes));
        return SUCCESS;
    }
}
