package tierlab.engine.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The binding against the real libcudart of this host. Without a GPU every device call returns an
 * error, which is what the error mapping needs: the names come from cudaGetErrorName itself.
 * Skipped, with the reason printed, where there is no libcudart.
 */
class CudaRuntimeTest {

    private static CudaRuntime runtime;

    @BeforeAll
    static void load() {
        CudaLibrary.Lookup lookup = CudaLibrary.find();
        if (lookup.library().isEmpty()) {
            System.out.println("CudaRuntimeTest skipped: " + lookup.reason());
            Assumptions.abort(lookup.reason());
        }
        runtime = CudaRuntime.load(lookup.library().get());
        System.out.println("libcudart: " + runtime.library());
    }

    @Test
    void errorNamesAndStringsComeFromTheLibrary() {
        assertEquals("cudaSuccess", runtime.errorName(CudaApi.SUCCESS));
        assertEquals("cudaErrorInvalidValue", runtime.errorName(CudaApi.ERROR_INVALID_VALUE));
        assertEquals("cudaErrorMemoryAllocation", runtime.errorName(CudaApi.ERROR_MEMORY_ALLOCATION));
        assertEquals("cudaErrorInsufficientDriver", runtime.errorName(CudaApi.ERROR_INSUFFICIENT_DRIVER));
        assertEquals("cudaErrorNoDevice", runtime.errorName(CudaApi.ERROR_NO_DEVICE));
        assertEquals("cudaErrorNotReady", runtime.errorName(CudaApi.ERROR_NOT_READY));
        assertEquals("cudaErrorHostMemoryAlreadyRegistered", runtime.errorName(CudaApi.ERROR_HOST_MEMORY_ALREADY_REGISTERED));
        assertEquals("no error", runtime.errorString(CudaApi.SUCCESS));
        assertFalse(runtime.errorString(CudaApi.ERROR_NO_DEVICE).isBlank());
    }

    @Test
    void theRuntimeReportsItsVersion() {
        int version = runtime.runtimeVersion();
        assertTrue(version >= 12000, "runtime version " + version);
    }

    /** On a host without a GPU the device count is an error named by CUDA; on a GPU host it is a count. */
    @Test
    void deviceCallsFailWithANamedErrorWithoutADevice() {
        CudaDevice device = CudaDevice.probe(runtime, 0, runtime.library().getFileName().toString());
        System.out.println("CUDA device: " + device.description());
        if (device.available()) {
            assertTrue(runtime.deviceCount() > 0);
            return;
        }
        CudaException failure = assertThrows(CudaException.class, runtime::deviceCount);
        assertTrue(Set.of("cudaErrorNoDevice", "cudaErrorInsufficientDriver").contains(failure.errorName()), failure.getMessage());
        assertEquals(failure.errorName().equals("cudaErrorNoDevice") ? CudaApi.ERROR_NO_DEVICE : CudaApi.ERROR_INSUFFICIENT_DRIVER,
                failure.code());
        assertTrue(failure.getMessage().startsWith("cudaGetDeviceCount failed: " + failure.errorName() + " ("), failure.getMessage());
        assertTrue(device.description().startsWith("cudaGetDeviceCount failed: " + failure.errorName()), device.description());
        // A copy without a device is a code, not an exception: the copy port turns it into a failed completion.
        int code = runtime.memcpyAsync(0, 0, 4096, CudaApi.MEMCPY_HOST_TO_DEVICE, 0);
        assertTrue(code != CudaApi.SUCCESS, "a copy without a device cannot succeed");
        assertTrue(runtime.errorName(code).startsWith("cudaError"), runtime.errorName(code));
    }

    /**
     * Every downcall of the binding is invoked once: {@code invokeExact} checks the Java types against
     * each handle's descriptor only when called, so a mismatch would otherwise first show on a GPU
     * host. Without a device each call answers with CUDA's error (a code or a named exception), never
     * a WrongMethodTypeException. Skipped on a GPU host, where the other tests use the calls for real.
     */
    @Test
    void everyCallIsInvocableAndAnswersWithCudasErrorWithoutADevice() {
        CudaDevice device = CudaDevice.probe(runtime, 0, "libcudart");
        Assumptions.assumeFalse(device.available(), "a GPU host: the calls run for real in CudaGpuTest");
        List<Runnable> setupCalls = List.of(runtime::deviceCount, () -> runtime.setDevice(0), () -> runtime.deviceName(0),
                () -> runtime.pciBusId(0), runtime::memoryInfo, () -> runtime.malloc(4096), () -> runtime.free(0),
                () -> runtime.mallocHost(4096), () -> runtime.freeHost(0), () -> runtime.hostRegister(0, 4096, 0),
                () -> runtime.hostUnregister(0), () -> runtime.streamCreate(CudaApi.STREAM_NON_BLOCKING),
                () -> runtime.streamDestroy(0), () -> runtime.eventCreate(CudaApi.EVENT_DISABLE_TIMING),
                () -> runtime.eventDestroy(0), () -> runtime.eventElapsedMs(0, 0));
        for (Runnable call : setupCalls) {
            CudaException failure = assertThrows(CudaException.class, call::run);
            assertTrue(failure.errorName().startsWith("cudaError"), failure.getMessage());
        }
        int[] codes = {runtime.eventRecord(0, 0), runtime.eventQuery(0), runtime.eventSynchronize(0), runtime.streamSynchronize(0),
            runtime.memcpy(0, 0, 4096, CudaApi.MEMCPY_DEVICE_TO_HOST)};
        for (int code : codes) {
            assertTrue(code != CudaApi.SUCCESS && runtime.errorName(code).startsWith("cudaError"), runtime.errorName(code));
        }
        // 0 without a driver; a driver without a device reports its version.
        assertEquals(device.description().contains("no CUDA driver"), runtime.driverVersion() == 0, device.description());
    }

    @Test
    void aMissingLibraryIsOneSentence() {
        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class,
                () -> CudaRuntime.load(Path.of("/nonexistent/libcudart.so.13")));
        assertTrue(failure.getMessage().startsWith("cannot load /nonexistent/libcudart.so.13"), failure.getMessage());
    }
}
