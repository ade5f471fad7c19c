package tierlab.engine.uring;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Optional;

/**
 * The few libc entry points the engine needs, bound through the FFM linker (no JNI, no liburing).
 *
 * <p>Every call that can fail captures {@code errno} through
 * {@link Linker.Option#captureCallState(String...)}: the JVM may run code between the native call
 * returning and Java reading {@code errno} (safepoints, class loading, other native calls) that
 * overwrites the thread's {@code errno}, so it must be copied out by the linker in the same
 * downcall. Each method takes an {@code errnoState} segment (from {@link #newErrnoState(Arena)})
 * and returns the raw C result: {@code -1} (or {@code MAP_FAILED}) means "read
 * {@link #errno(MemorySegment)}". The hot path (one {@code io_uring_enter} per batch) reuses one
 * state segment per ring thread, so it allocates nothing.
 *
 * <p>The three io_uring system calls have no libc wrapper in glibc 2.36, so they go through the
 * variadic {@code long syscall(long number, ...)}. All variadic arguments are passed as 64-bit
 * {@code long} (or pointers): the x86-64 and arm64 calling conventions put each in a full register,
 * and passing a Java {@code int} would leave the register's upper half unspecified.
 */
@SuppressWarnings("restricted") // this is the binding: its downcalls and mapped segments are the point
public final class Libc {

    /** x86-64 and arm64 share these numbers: io_uring came after the unified syscall table (uapi asm-generic/unistd.h). */
    public static final long SYS_IO_URING_SETUP = 425;
    public static final long SYS_IO_URING_ENTER = 426;
    public static final long SYS_IO_URING_REGISTER = 427;

    // fcntl.h / asm-generic/fcntl.h flag values for x86-64 (arm64 differs for O_DIRECT: 0x10000).
    public static final int O_RDONLY = 0;
    public static final int O_RDWR = 0x2;
    public static final int O_CREAT = 0x40;
    public static final int O_DIRECT = "aarch64".equals(System.getProperty("os.arch")) ? 0x10000 : 0x4000;
    public static final int O_CLOEXEC = 0x80000;
    public static final int O_EXCL = 0x80;

    // sys/file.h: flock(2) operations.
    public static final int LOCK_EX = 2;
    public static final int LOCK_NB = 4;

    // sys/mman.h
    public static final int PROT_READ = 0x1;
    public static final int PROT_WRITE = 0x2;
    public static final int MAP_SHARED = 0x1;
    public static final int MAP_PRIVATE = 0x2;
    public static final int MAP_ANONYMOUS = 0x20;
    public static final int MAP_NORESERVE = 0x4000;
    public static final int MAP_POPULATE = 0x8000;

    // sys/eventfd.h
    public static final int EFD_CLOEXEC = 0x80000;

    // sys/resource.h: RLIMIT_MEMLOCK is 8 on Linux; RLIM_INFINITY is all ones.
    public static final int RLIMIT_MEMLOCK = 8;
    public static final long RLIM_INFINITY = -1L;

    // unistd.h
    public static final int SEEK_END = 2;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO_HANDLE = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    /** long syscall(425, unsigned entries, struct io_uring_params *p). */
    private static final MethodHandle SYSCALL_SETUP = downcall("syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS),
            CAPTURE_ERRNO, Linker.Option.firstVariadicArg(1));
    /** long syscall(426, fd, to_submit, min_complete, flags, const void *arg, size_t argsz). */
    private static final MethodHandle SYSCALL_ENTER = downcall("syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG),
            CAPTURE_ERRNO, Linker.Option.firstVariadicArg(1));
    /** long syscall(427, fd, opcode, void *arg, unsigned nr_args). */
    private static final MethodHandle SYSCALL_REGISTER = downcall("syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG),
            CAPTURE_ERRNO, Linker.Option.firstVariadicArg(1));
    /** int open(const char *path, int flags, ...): mode_t is variadic and promoted to int. */
    private static final MethodHandle OPEN = downcall("open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), CAPTURE_ERRNO, Linker.Option.firstVariadicArg(2));
    private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    /** int flock(int fd, int operation): a lock of the open file description on the file's inode. */
    private static final MethodHandle FLOCK = downcall("flock", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle FALLOCATE = downcall("fallocate",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG), CAPTURE_ERRNO);
    private static final MethodHandle FTRUNCATE = downcall("ftruncate",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG), CAPTURE_ERRNO);
    private static final MethodHandle LSEEK = downcall("lseek",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle MMAP = downcall("mmap",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG), CAPTURE_ERRNO);
    private static final MethodHandle MUNMAP = downcall("munmap",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG), CAPTURE_ERRNO);
    private static final MethodHandle MLOCK = downcall("mlock",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG), CAPTURE_ERRNO);
    private static final MethodHandle MUNLOCK = downcall("munlock",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG), CAPTURE_ERRNO);
    private static final MethodHandle GETRLIMIT = downcall("getrlimit",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), CAPTURE_ERRNO);
    private static final MethodHandle EVENTFD = downcall("eventfd",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle WRITE = downcall("write",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), CAPTURE_ERRNO);
    /** char *strerror(int): only for human-readable messages; the engine reports names from {@link Errno}. */
    private static final MethodHandle STRERROR = downcall("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private Libc() {}

    private static MethodHandle downcall(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        Optional<MemorySegment> symbol = LIBC.find(name);
        if (symbol.isEmpty()) {
            throw new UnsatisfiedLinkError("libc has no symbol " + name);
        }
        return LINKER.downcallHandle(symbol.get(), descriptor, options);
    }

    /** A segment the linker copies errno into; one per thread that makes calls (not thread-safe to share). */
    public static MemorySegment newErrnoState(Arena arena) {
        return arena.allocate(CAPTURE_LAYOUT);
    }

    /** The errno captured by the last call made with {@code errnoState}. */
    public static int errno(MemorySegment errnoState) {
        return (int) ERRNO_HANDLE.get(errnoState, 0L);
    }

    // ---- io_uring system calls -----------------------------------------------------------------

    /** io_uring_setup(2): returns the ring fd, or -1 with errno. */
    public static int ioUringSetup(MemorySegment errnoState, int entries, MemorySegment params) {
        try {
            return (int) (long) SYSCALL_SETUP.invokeExact(errnoState, SYS_IO_URING_SETUP, (long) entries, params);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** io_uring_enter(2) without a signal mask: returns SQEs consumed, or -1 with errno. */
    public static int ioUringEnter(MemorySegment errnoState, int ringFd, int toSubmit, int minComplete, int flags) {
        try {
            return (int) (long) SYSCALL_ENTER.invokeExact(errnoState, SYS_IO_URING_ENTER, (long) ringFd,
                    (long) toSubmit, (long) minComplete, (long) flags, MemorySegment.NULL, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** io_uring_register(2): returns 0 (or an opcode-specific count), or -1 with errno. */
    public static int ioUringRegister(MemorySegment errnoState, int ringFd, int opcode, MemorySegment arg, int nrArgs) {
        try {
            return (int) (long) SYSCALL_REGISTER.invokeExact(errnoState, SYS_IO_URING_REGISTER, (long) ringFd,
                    (long) opcode, arg, (long) nrArgs);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- files -----------------------------------------------------------------------------------

    /** open(2) with a mode for O_CREAT; returns the fd or -1 with errno. */
    public static int open(MemorySegment errnoState, MemorySegment cPath, int flags, int mode) {
        try {
            return (int) OPEN.invokeExact(errnoState, cPath, flags, mode);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int close(MemorySegment errnoState, int fd) {
        try {
            return (int) CLOSE.invokeExact(errnoState, fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * flock(2): unlike fcntl's POSIX locks (FileChannel.lock), the lock belongs to this open file
     * description, so closing another descriptor of the same file elsewhere in the process does
     * not drop it, and it is on the inode, so every path to the file (a symlink, a hard link) meets it.
     */
    public static int flock(MemorySegment errnoState, int fd, int operation) {
        try {
            return (int) FLOCK.invokeExact(errnoState, fd, operation);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** fallocate(2) with mode 0: allocates blocks and extends the file size to offset + length. */
    public static int fallocate(MemorySegment errnoState, int fd, int mode, long offset, long length) {
        try {
            return (int) FALLOCATE.invokeExact(errnoState, fd, mode, offset, length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int ftruncate(MemorySegment errnoState, int fd, long length) {
        try {
            return (int) FTRUNCATE.invokeExact(errnoState, fd, length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** lseek(2); with SEEK_END and offset 0 this is the size of a file or of a block device. */
    public static long lseek(MemorySegment errnoState, int fd, long offset, int whence) {
        try {
            return (long) LSEEK.invokeExact(errnoState, fd, offset, whence);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- memory ----------------------------------------------------------------------------------

    /** mmap(2); returns the raw address, which is -1 (MAP_FAILED) on error. */
    public static long mmap(MemorySegment errnoState, long lengthBytes, int prot, int flags, int fd, long offset) {
        try {
            MemorySegment address = (MemorySegment) MMAP.invokeExact(errnoState, MemorySegment.NULL, lengthBytes, prot, flags, fd, offset);
            return address.address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int munmap(MemorySegment errnoState, long address, long lengthBytes) {
        try {
            return (int) MUNMAP.invokeExact(errnoState, MemorySegment.ofAddress(address), lengthBytes);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int mlock(MemorySegment errnoState, long address, long lengthBytes) {
        try {
            return (int) MLOCK.invokeExact(errnoState, MemorySegment.ofAddress(address), lengthBytes);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int munlock(MemorySegment errnoState, long address, long lengthBytes) {
        try {
            return (int) MUNLOCK.invokeExact(errnoState, MemorySegment.ofAddress(address), lengthBytes);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * The soft RLIMIT_MEMLOCK in bytes ({@link #RLIM_INFINITY} when unlimited), or -2 when
     * getrlimit fails. {@code struct rlimit} is two {@code rlim_t} (unsigned long): cur at +0, max at +8.
     */
    public static long memlockSoftLimitBytes() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = newErrnoState(arena);
            MemorySegment rlimit = arena.allocate(16, 8);
            int rc = (int) GETRLIMIT.invokeExact(state, RLIMIT_MEMLOCK, rlimit);
            return rc == 0 ? rlimit.get(JAVA_LONG, 0) : -2;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- eventfd (ring wake-ups) -----------------------------------------------------------------

    public static int eventfd(MemorySegment errnoState, int initialValue, int flags) {
        try {
            return (int) EVENTFD.invokeExact(errnoState, initialValue, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static long write(MemorySegment errnoState, int fd, MemorySegment buffer, long lengthBytes) {
        try {
            return (long) WRITE.invokeExact(errnoState, fd, buffer, lengthBytes);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- messages --------------------------------------------------------------------------------

    /** strerror's text for an errno ("Invalid argument"); "unknown error" if libc has none. */
    public static String describe(int errno) {
        try {
            MemorySegment text = (MemorySegment) STRERROR.invokeExact(Math.abs(errno));
            if (text.equals(MemorySegment.NULL)) {
                return "unknown error";
            }
            return text.reinterpret(1024).getString(0);
        } catch (Throwable t) {
            return "unknown error";
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (t instanceof Error error) {
            throw error;
        }
        throw new IllegalStateException("native call failed unexpectedly", t);
    }
}
