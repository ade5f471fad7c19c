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
import java.util.List;

/**
 * libnvrtc (CUDA 13's nvrtc.h) through FFM: compiles CUDA C++ source to a CUBIN for one real GPU
 * architecture. {@code nvrtcResult} is a C enum (4-byte int, {@code NVRTC_SUCCESS} 0) and
 * {@code nvrtcProgram} a pointer (8 bytes). Needs no GPU.
 */
public final class Nvrtc {

    /** What one compile gave: the CUBIN, or empty and the compiler's log. */
    public record Compiled(byte[] cubin, String log) {
        public boolean ok() {
            return cubin.length > 0;
        }
    }

    private final Path library;
    private final MethodHandle getErrorString;
    private final MethodHandle createProgram;
    private final MethodHandle destroyProgram;
    private final MethodHandle compileProgram;
    private final MethodHandle getLogSize;
    private final MethodHandle getLog;
    private final MethodHandle getCubinSize;
    private final MethodHandle getCubin;

    private Nvrtc(Path library, Downcalls lib) {
        this.library = library;
        // const char *nvrtcGetErrorString(nvrtcResult result)
        getErrorString = lib.bind("nvrtcGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        // nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name, int numHeaders,
        //                                const char * const *headers, const char * const *includeNames)
        createProgram = lib.bind("nvrtcCreateProgram",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
        // nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog)
        destroyProgram = lib.bind("nvrtcDestroyProgram", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        // nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int numOptions, const char * const *options)
        compileProgram = lib.bind("nvrtcCompileProgram", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS));
        // nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram prog, size_t *logSizeRet); nvrtcGetProgramLog(prog, char *log)
        getLogSize = lib.bind("nvrtcGetProgramLogSize", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        getLog = lib.bind("nvrtcGetProgramLog", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        // nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *cubinSizeRet); nvrtcGetCUBIN(prog, char *cubin)
        getCubinSize = lib.bind("nvrtcGetCUBINSize", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        getCubin = lib.bind("nvrtcGetCUBIN", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
    }

    public static Nvrtc load(Path library) {
        return new Nvrtc(library, Downcalls.load(library));
    }

    public Path library() {
        return library;
    }

    /** The option naming the real architecture of compute capability {@code major.minor}: {@code --gpu-architecture=sm_90}. */
    public static String architectureOption(int major, int minor) {
        return "--gpu-architecture=sm_" + major + minor;
    }

    /**
     * Compiles {@code source}; a compile error is a value (empty CUBIN, the log), a failing call an exception.
     */
    public Compiled compile(String source, String name, List<String> options) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment program = arena.allocate(ADDRESS);
            check("nvrtcCreateProgram", (int) createProgram.invokeExact(program, arena.allocateFrom(source),
                    arena.allocateFrom(name), 0, MemorySegment.NULL, MemorySegment.NULL));
            long handle = program.get(JAVA_LONG, 0);
            try {
                MemorySegment optionArray = arena.allocate(ADDRESS, Math.max(1, options.size()));
                for (int i = 0; i < options.size(); i++) {
                    optionArray.setAtIndex(ADDRESS, i, arena.allocateFrom(options.get(i)));
                }
                int compiled = (int) compileProgram.invokeExact(handle, options.size(), optionArray);
                String log = log(arena, handle);
                if (compiled != 0) {
                    return new Compiled(new byte[0], errorString(compiled) + ": " + log);
                }
                MemorySegment size = arena.allocate(JAVA_LONG);
                check("nvrtcGetCUBINSize", (int) getCubinSize.invokeExact(handle, size));
                MemorySegment cubin = arena.allocate(size.get(JAVA_LONG, 0));
                check("nvrtcGetCUBIN", (int) getCubin.invokeExact(handle, cubin));
                return new Compiled(cubin.toArray(JAVA_BYTE), log);
            } finally {
                int ignored = (int) destroyProgram.invokeExact(program);
            }
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private String log(Arena arena, long handle) throws Throwable {
        MemorySegment size = arena.allocate(JAVA_LONG);
        check("nvrtcGetProgramLogSize", (int) getLogSize.invokeExact(handle, size));
        long bytes = size.get(JAVA_LONG, 0);
        if (bytes <= 1) {
            return "";
        }
        MemorySegment text = arena.allocate(bytes);
        check("nvrtcGetProgramLog", (int) getLog.invokeExact(handle, text));
        return text.getString(0).strip();
    }

    private String errorString(int code) {
        try {
            String text = Downcalls.cString((MemorySegment) getErrorString.invokeExact(code));
            return text == null ? "nvrtcResult " + code : text;
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private void check(String call, int code) {
        if (code != 0) {
            throw new IllegalStateException(call + " failed: " + errorString(code) + " (" + code + ")");
        }
    }
}
