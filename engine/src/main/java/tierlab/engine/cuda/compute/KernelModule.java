package tierlab.engine.cuda.compute;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The forward pass's kernels ({@code kernels.cu} beside this class): compiled by NVRTC for the device's
 * architecture and one head dimension and query group, loaded as a module, and launched through the
 * driver. Launches from one thread at a time (the argument buffer is reused: cuLaunchKernel copies the
 * arguments before it returns, also while a stream is captured).
 */
public final class KernelModule {

    public static final String SOURCE = "kernels.cu";
    /** Every kernel of the source, the names {@code extern "C"} keeps. */
    public static final List<String> KERNELS = List.of("fill_random", "fill_value", "rmsnorm", "swiglu", "kv_scatter",
            "attn_decode", "attn_decode_fast", "attn_decode_reduce", "kv_gather", "q_gather", "softmax_causal", "o_scatter",
            "argmax_rows");
    private static final int MAX_ARGS = 16;

    private final CudaDriver driver;
    private final Map<String, Long> functions = new TreeMap<>();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment values = arena.allocate(8L * MAX_ARGS, 8);
    private final MemorySegment pointers = arena.allocate(ADDRESS, MAX_ARGS);

    private KernelModule(CudaDriver driver, long module) {
        this.driver = driver;
        for (String name : KERNELS) {
            functions.put(name, driver.function(module, name));
        }
        for (int i = 0; i < MAX_ARGS; i++) {
            pointers.setAtIndex(ADDRESS, i, values.asSlice(8L * i, 8));
        }
    }

    /** The source text of the kernels. */
    public static String source() {
        try (InputStream in = KernelModule.class.getResourceAsStream(SOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the resource " + SOURCE + " is missing from the build");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** NVRTC's options for one architecture and shape: the real architecture, the head dimension, the group. */
    public static List<String> options(int ccMajor, int ccMinor, int headDim, int group) {
        return List.of(Nvrtc.architectureOption(ccMajor, ccMinor), "-DHEAD_DIM=" + headDim, "-DGROUP=" + group,
                "--std=c++17", "-default-device");
    }

    /**
     * Compiles and loads the kernels.
     *
     * @throws IllegalStateException with NVRTC's log when the source does not compile
     */
    public static KernelModule compileAndLoad(Nvrtc nvrtc, CudaDriver driver, int ccMajor, int ccMinor, int headDim,
                                              int group) {
        Nvrtc.Compiled compiled = nvrtc.compile(source(), SOURCE, options(ccMajor, ccMinor, headDim, group));
        if (!compiled.ok()) {
            throw new IllegalStateException("NVRTC could not compile " + SOURCE + " for sm_" + ccMajor + ccMinor + ": "
                    + compiled.log());
        }
        return new KernelModule(driver, driver.loadModule(compiled.cubin()));
    }

    /**
     * Launches kernel {@code name} on {@code stream}: a 1-D block of {@code threads}; each argument an
     * {@link Integer} (int), {@link Long} (a pointer, {@code long long} or {@code unsigned long long}) or
     * {@link Float}, in the kernel's order.
     */
    public void launch(String name, int gridX, int gridY, int gridZ, int threads, long stream, Object... args) {
        if (args.length > MAX_ARGS) {
            throw new IllegalArgumentException(name + ": " + args.length + " arguments, at most " + MAX_ARGS);
        }
        for (int i = 0; i < args.length; i++) {
            long at = 8L * i;
            switch (args[i]) {
                case Integer v -> values.set(JAVA_INT, at, v);
                case Long v -> values.set(JAVA_LONG, at, v);
                case Float v -> values.set(JAVA_FLOAT, at, v);
                default -> throw new IllegalArgumentException(name + ": argument " + i + " is a " + args[i].getClass());
            }
        }
        Long function = functions.get(name);
        if (function == null) {
            throw new IllegalArgumentException("no kernel " + name);
        }
        driver.launch(name, function, gridX, gridY, gridZ, threads, 0, stream, pointers);
    }
}
