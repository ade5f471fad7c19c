package tierlab.engine;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import tierlab.engine.uring.Errno;
import tierlab.engine.uring.Libc;
import tierlab.engine.uring.NativeIoException;

/**
 * The L2 file or raw block device as a file descriptor for io_uring: opened with
 * O_RDWR | O_CLOEXEC | O_DIRECT (O_CREAT too for a regular file), and for a regular file created
 * and extended on demand (fallocate, else ftruncate) to the preallocation size.
 */
final class NativeL2File implements AutoCloseable {

    private static final int MODE_0644 = 0644;

    private final Path path;
    private final int fd;
    private final boolean blockDevice;
    private final boolean directIo;
    private boolean closed;

    private NativeL2File(Path path, int fd, boolean blockDevice, boolean directIo) {
        this.path = path;
        this.fd = fd;
        this.blockDevice = blockDevice;
        this.directIo = directIo;
    }

    static NativeL2File open(Path path, boolean directIo, long preallocateBytes) throws IOException {
        if (Files.isDirectory(path)) {
            throw new IOException("L2 path " + path + " is a directory; give a file or a block device");
        }
        boolean existed = Files.exists(path);
        boolean device = existed && !Files.isRegularFile(path);
        int flags = Libc.O_RDWR | Libc.O_CLOEXEC | (directIo ? Libc.O_DIRECT : 0) | (device ? 0 : Libc.O_CREAT);
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment state = Libc.newErrnoState(scratch);
            int fd = Libc.open(state, scratch.allocateFrom(path.toString()), flags, MODE_0644);
            if (fd < 0) {
                int errno = Libc.errno(state);
                throw new NativeIoException("open(" + path + (directIo ? ", O_RDWR|O_DIRECT" : ", O_RDWR") + ")", errno,
                        errno == Errno.EINVAL && directIo
                                ? "the file system under " + path + " does not support O_DIRECT (tmpfs?); use ext4/xfs or directIo=false"
                                : null);
            }
            NativeL2File file = new NativeL2File(path, fd, device, directIo);
            if (!device && preallocateBytes > 0) {
                try {
                    file.extendTo(state, preallocateBytes);
                } catch (IOException e) {
                    file.close();
                    L2Room.deleteIfCreated(path, existed);
                    throw e;
                }
            }
            return file;
        }
    }

    private void extendTo(MemorySegment state, long sizeBytes) throws IOException {
        long current = Libc.lseek(state, fd, 0, Libc.SEEK_END);
        if (current < 0) {
            throw new NativeIoException("lseek(" + path + ", SEEK_END)", Libc.errno(state));
        }
        if (current >= sizeBytes) {
            return;
        }
        L2Room.check(path, current, sizeBytes);
        // fallocate reserves the blocks, so later O_DIRECT writes neither extend the file (ext4
        // would punt those to io-wq) nor fail with ENOSPC half-way through a run.
        if (Libc.fallocate(state, fd, 0, current, sizeBytes - current) == 0) {
            return;
        }
        int errno = Libc.errno(state);
        if (errno != Errno.EOPNOTSUPP) {
            throw new NativeIoException("fallocate(" + path + ", " + sizeBytes + " bytes)", errno);
        }
        if (Libc.ftruncate(state, fd, sizeBytes) != 0) {
            throw new NativeIoException("ftruncate(" + path + ", " + sizeBytes + " bytes)", Libc.errno(state));
        }
    }

    int fd() {
        return fd;
    }

    Path path() {
        return path;
    }

    boolean blockDevice() {
        return blockDevice;
    }

    boolean directIo() {
        return directIo;
    }

    /** The current size of the file or device in bytes (lseek to the end). */
    long sizeBytes() throws NativeIoException {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment state = Libc.newErrnoState(scratch);
            long size = Libc.lseek(state, fd, 0, Libc.SEEK_END);
            if (size < 0) {
                throw new NativeIoException("lseek(" + path + ", SEEK_END)", Libc.errno(state));
            }
            return size;
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try (Arena scratch = Arena.ofConfined()) {
            Libc.close(Libc.newErrnoState(scratch), fd);
        }
    }
}
