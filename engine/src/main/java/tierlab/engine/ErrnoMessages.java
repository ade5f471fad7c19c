package tierlab.engine;

import java.util.HashMap;
import java.util.Map;
import tierlab.engine.uring.Errno;
import tierlab.engine.uring.Libc;

/**
 * Maps the JDK's IOException messages back to errno names. For failed file I/O the JDK throws an
 * IOException whose message is libc's {@code strerror} text ("File too large"); the table is built
 * once from libc itself, so it matches the running system's wording. Without FFM (no native
 * access) a small built-in table covers the errors storage can raise.
 */
final class ErrnoMessages {

    private static final Map<String, String> NAME_BY_MESSAGE = build();

    private ErrnoMessages() {}

    private static Map<String, String> build() {
        Map<String, String> table = new HashMap<>();
        table.put("Input/output error", "EIO");
        table.put("Invalid argument", "EINVAL");
        table.put("Bad file descriptor", "EBADF");
        table.put("No space left on device", "ENOSPC");
        table.put("File too large", "EFBIG");
        table.put("Bad address", "EFAULT");
        table.put("Operation not permitted", "EPERM");
        table.put("Permission denied", "EACCES");
        table.put("Read-only file system", "EROFS");
        table.put("Disk quota exceeded", "EDQUOT");
        try {
            for (int errno = 1; errno <= Errno.maxErrno(); errno++) {
                String name = Errno.name(errno);
                if (!name.equals("E" + errno)) {
                    table.putIfAbsent(Libc.describe(errno), name);
                }
            }
        } catch (Throwable t) {
            // No native access: the built-in entries above remain.
        }
        return table;
    }

    /** The errno name for a strerror message, or EIO when the message is not one. */
    static String nameOf(String message) {
        if (message == null) {
            return "EIO";
        }
        return NAME_BY_MESSAGE.getOrDefault(message.trim(), "EIO");
    }
}
