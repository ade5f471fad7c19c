package tierlab.engine.uring;

import static tierlab.engine.uring.IoUringLayout.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether io_uring is usable here for the engine, and why not: the OS and architecture the binding
 * knows, the FFM linker (native access), io_uring_setup's errno with the sysctl or seccomp reason
 * behind it, and the opcodes the engine needs ({@link #probe()} caches the answer, {@link #run()} asks again).
 */
public final class UringAvailability {

    /** The io_uring opcodes the engine needs, checked by {@link #probe()}. */
    private static final byte[] REQUIRED_OPCODES = {IORING_OP_READ, IORING_OP_WRITE, IORING_OP_READ_FIXED, IORING_OP_WRITE_FIXED};

    private static volatile IoUringProbe cachedProbe;

    private UringAvailability() {
    }

    /**
     * Whether io_uring is usable here for the engine, and if not, why: the OS, the FFM linker
     * (native access), io_uring_setup's errno (ENOSYS: no io_uring or seccomp; EPERM: the
     * io_uring_disabled sysctl or seccomp), and the opcodes the engine needs. Cached after the
     * first call; never throws.
     */
    public static IoUringProbe probe() {
        IoUringProbe probe = cachedProbe;
        if (probe == null) {
            probe = run();
            cachedProbe = probe;
        }
        return probe;
    }

    /** Runs the probe again. */
    public static IoUringProbe run() {
        String kernel = System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch");
        if (!"Linux".equals(System.getProperty("os.name"))) {
            return IoUringProbe.unavailable("io_uring is Linux-only; this is " + kernel, null, kernel);
        }
        String arch = System.getProperty("os.arch");
        if (!"amd64".equals(arch) && !"aarch64".equals(arch)) {
            return IoUringProbe.unavailable("the binding knows syscall numbers and flags for amd64 and aarch64 only, not " + arch, null, kernel);
        }
        try (IoUring ring = IoUring.create(4, 0)) {
            boolean[] supported = ring.supportedOpcodes();
            List<String> missing = new ArrayList<>();
            for (byte op : REQUIRED_OPCODES) {
                if (op >= supported.length || !supported[op]) {
                    missing.add(opcodeName(op));
                }
            }
            if (!missing.isEmpty()) {
                return IoUringProbe.unavailable("the kernel lacks opcodes " + missing + " (IORING_OP_READ/WRITE need 5.6+)", null, kernel);
            }
            return IoUringProbe.available(ring.features(), kernel);
        } catch (NativeIoException e) {
            return IoUringProbe.unavailable(e.getMessage(), e.errnoName(), kernel);
        } catch (IllegalCallerException e) {
            return IoUringProbe.unavailable("native access is disabled for this module: run java with --enable-native-access=ALL-UNNAMED ("
                    + e.getMessage() + ")", null, kernel);
        } catch (Throwable e) {
            return IoUringProbe.unavailable("the FFM binding failed to load: " + e, null, kernel);
        }
    }

    static String opcodeName(byte op) {
        return switch (op) {
            case IORING_OP_NOP -> "IORING_OP_NOP";
            case IORING_OP_READ_FIXED -> "IORING_OP_READ_FIXED";
            case IORING_OP_WRITE_FIXED -> "IORING_OP_WRITE_FIXED";
            case IORING_OP_READ -> "IORING_OP_READ";
            case IORING_OP_WRITE -> "IORING_OP_WRITE";
            default -> "opcode " + op;
        };
    }

    /** Why io_uring_setup failed with {@code errno}, in words, or null. */
    static String setupHint(int errno) {
        return switch (errno) {
            case Errno.ENOSYS -> "the kernel has no io_uring (CONFIG_IO_URING off) or a seccomp filter answers ENOSYS";
            case Errno.EPERM -> permissionHint(readSysctl("io_uring_disabled"));
            case Errno.ENOMEM -> "not enough locked memory for the rings (RLIMIT_MEMLOCK on kernels before 5.12)";
            case Errno.EINVAL -> "entries or flags not accepted by this kernel";
            default -> null;
        };
    }

    private static String permissionHint(String disabled) {
        return switch (disabled) {
            case "0" -> "kernel.io_uring_disabled is 0, so a seccomp filter (container runtime, systemd SystemCallFilter) refuses io_uring";
            case "1" -> "kernel.io_uring_disabled is 1: only members of group kernel.io_uring_group ("
                    + readSysctl("io_uring_group") + ") may create rings";
            case "2" -> "kernel.io_uring_disabled is 2: io_uring is switched off for everyone";
            default -> "a seccomp filter or a security module refuses io_uring (kernel.io_uring_disabled: " + disabled + ")";
        };
    }

    private static String readSysctl(String name) {
        try {
            return Files.readString(Path.of("/proc/sys/kernel", name)).trim();
        } catch (Exception e) {
            return "unreadable";
        }
    }
}
