package tierlab.engine.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every value and size the binding assumes, against the CUDA headers themselves: gcc compiles a
 * small C program against cuda_runtime_api.h / driver_types.h that prints the enum values, flag
 * macros and type sizes, and the test compares them with {@link CudaApi}'s constants and the
 * descriptors of {@link CudaRuntime}. Skipped, with the reason printed, where gcc or the headers
 * are missing.
 */
class CudaLayoutTest {

    /** The headers: {@code tierlab.cuda.include}, else the toolkit's usual folder. */
    static final Path INCLUDE = Path.of(System.getProperty("tierlab.cuda.include", "/usr/local/cuda/targets/x86_64-linux/include"));

    private static final String PROGRAM = """
            #include <stdio.h>
            #include <stddef.h>
            #include <cuda_runtime_api.h>
            #define SHOW(name, value) printf("%s %lld\\n", name, (long long) (value))
            int main(void) {
                SHOW("cudaSuccess", cudaSuccess);
                SHOW("cudaErrorInvalidValue", cudaErrorInvalidValue);
                SHOW("cudaErrorMemoryAllocation", cudaErrorMemoryAllocation);
                SHOW("cudaErrorInsufficientDriver", cudaErrorInsufficientDriver);
                SHOW("cudaErrorNoDevice", cudaErrorNoDevice);
                SHOW("cudaErrorNotReady", cudaErrorNotReady);
                SHOW("cudaErrorHostMemoryAlreadyRegistered", cudaErrorHostMemoryAlreadyRegistered);
                SHOW("cudaMemcpyHostToDevice", cudaMemcpyHostToDevice);
                SHOW("cudaMemcpyDeviceToHost", cudaMemcpyDeviceToHost);
                SHOW("cudaStreamNonBlocking", cudaStreamNonBlocking);
                SHOW("cudaEventDefault", cudaEventDefault);
                SHOW("cudaEventDisableTiming", cudaEventDisableTiming);
                SHOW("cudaHostRegisterDefault", cudaHostRegisterDefault);
                SHOW("cudaHostRegisterPortable", cudaHostRegisterPortable);
                SHOW("sizeof(cudaError_t)", sizeof(cudaError_t));
                SHOW("sizeof(enum cudaMemcpyKind)", sizeof(enum cudaMemcpyKind));
                SHOW("sizeof(cudaStream_t)", sizeof(cudaStream_t));
                SHOW("sizeof(cudaEvent_t)", sizeof(cudaEvent_t));
                SHOW("sizeof(size_t)", sizeof(size_t));
                SHOW("sizeof(void*)", sizeof(void*));
                SHOW("sizeof(unsigned int)", sizeof(unsigned int));
                SHOW("sizeof(float)", sizeof(float));
                SHOW("offsetof(struct cudaDeviceProp, name)", offsetof(struct cudaDeviceProp, name));
                SHOW("sizeof(((struct cudaDeviceProp*)0)->name)", sizeof(((struct cudaDeviceProp*)0)->name));
                SHOW("sizeof(struct cudaDeviceProp)", sizeof(struct cudaDeviceProp));
                SHOW("CUDART_VERSION", CUDART_VERSION);
                return 0;
            }
            """;

    private static Map<String, Long> fromHeaders;

    @BeforeAll
    static void compile(@TempDir Path dir) throws IOException, InterruptedException {
        if (!Files.isRegularFile(INCLUDE.resolve("cuda_runtime_api.h"))) {
            skip("no CUDA headers at " + INCLUDE + " (set -Dtierlab.cuda.include)");
        }
        Path source = dir.resolve("layout.c");
        Path binary = dir.resolve("layout");
        Files.writeString(source, PROGRAM);
        String compiled;
        try {
            compiled = run(dir, List.of("gcc", "-I", INCLUDE.toString(), "-o", binary.toString(), source.toString()));
        } catch (IOException e) {
            skip("gcc is not available: " + e.getMessage());
            return;
        }
        assertTrue(Files.isExecutable(binary), "gcc failed on the layout program:\n" + compiled);
        fromHeaders = new LinkedHashMap<>();
        for (String line : run(dir, List.of(binary.toString())).split("\n")) {
            int space = line.lastIndexOf(' ');
            fromHeaders.put(line.substring(0, space), Long.parseLong(line.substring(space + 1).trim()));
        }
        System.out.println("CUDA headers at " + INCLUDE + ": " + fromHeaders);
    }

    private static void skip(String reason) {
        System.out.println("CudaLayoutTest skipped: " + reason);
        Assumptions.abort(reason);
    }

    private static String run(Path dir, List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "timed out: " + command);
        return output;
    }

    private static long header(String name) {
        Long value = fromHeaders.get(name);
        assertTrue(value != null, name + " was not printed");
        return value;
    }

    @Test
    void errorCodesAreTheHeaders() {
        assertEquals(header("cudaSuccess"), CudaApi.SUCCESS);
        assertEquals(header("cudaErrorInvalidValue"), CudaApi.ERROR_INVALID_VALUE);
        assertEquals(header("cudaErrorMemoryAllocation"), CudaApi.ERROR_MEMORY_ALLOCATION);
        assertEquals(header("cudaErrorInsufficientDriver"), CudaApi.ERROR_INSUFFICIENT_DRIVER);
        assertEquals(header("cudaErrorNoDevice"), CudaApi.ERROR_NO_DEVICE);
        assertEquals(header("cudaErrorNotReady"), CudaApi.ERROR_NOT_READY);
        assertEquals(header("cudaErrorHostMemoryAlreadyRegistered"), CudaApi.ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    }

    @Test
    void copyKindsAndFlagsAreTheHeaders() {
        assertEquals(header("cudaMemcpyHostToDevice"), CudaApi.MEMCPY_HOST_TO_DEVICE);
        assertEquals(header("cudaMemcpyDeviceToHost"), CudaApi.MEMCPY_DEVICE_TO_HOST);
        assertEquals(header("cudaStreamNonBlocking"), CudaApi.STREAM_NON_BLOCKING);
        assertEquals(header("cudaEventDefault"), CudaApi.EVENT_DEFAULT);
        assertEquals(header("cudaEventDisableTiming"), CudaApi.EVENT_DISABLE_TIMING);
        assertEquals(header("cudaHostRegisterDefault"), CudaApi.HOST_REGISTER_DEFAULT);
        assertEquals(header("cudaHostRegisterPortable"), CudaApi.HOST_REGISTER_PORTABLE);
    }

    /** The downcall descriptors: enums and unsigned flags as JAVA_INT, handles, pointers and size_t as 8 bytes. */
    @Test
    void argumentSizesMatchTheDescriptors() {
        assertEquals(header("sizeof(cudaError_t)"), ValueLayout.JAVA_INT.byteSize());
        assertEquals(header("sizeof(enum cudaMemcpyKind)"), ValueLayout.JAVA_INT.byteSize());
        assertEquals(header("sizeof(unsigned int)"), ValueLayout.JAVA_INT.byteSize());
        assertEquals(header("sizeof(float)"), ValueLayout.JAVA_FLOAT.byteSize());
        assertEquals(header("sizeof(cudaStream_t)"), ValueLayout.JAVA_LONG.byteSize());
        assertEquals(header("sizeof(cudaEvent_t)"), ValueLayout.JAVA_LONG.byteSize());
        assertEquals(header("sizeof(size_t)"), ValueLayout.JAVA_LONG.byteSize());
        assertEquals(header("sizeof(void*)"), ValueLayout.ADDRESS.byteSize());
    }

    /** deviceName reads char name[256] at offset 0 of a buffer larger than the whole struct. */
    @Test
    void devicePropertiesBufferHoldsTheStructAndTheNameComesFirst() {
        assertEquals(0, header("offsetof(struct cudaDeviceProp, name)"));
        assertEquals(CudaRuntime.DEVICE_NAME_BYTES, header("sizeof(((struct cudaDeviceProp*)0)->name)"));
        assertTrue(header("sizeof(struct cudaDeviceProp)") < CudaRuntime.DEVICE_PROP_BUFFER_BYTES,
                "struct cudaDeviceProp is " + header("sizeof(struct cudaDeviceProp)") + " bytes");
        assertTrue(header("CUDART_VERSION") >= 12000, "headers of CUDA 12 or later");
    }
}
