package tierlab.engine.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
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

    @Test
    void aMissingLibraryIsOneSentence() {
        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class,
                () -> CudaRuntime.load(Path.of("/nonexistent/libcudart.so.13")));
        assertTrue(failure.getMessage().startsWith("cannot load /nonexistent/libcudart.so.13"), failure.getMessage());
    }
}
