package tierlab.experiments;

import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The cause of a failed file operation in words, for messages: "no space left on device (ENOSPC)"
 * rather than an exception's class name or a syscall's raw text. The JDK reports most failures
 * with libc's strerror text, and the io_uring engine with the errno name and that text; both are
 * recognised, so a message reads the same whichever storage port failed.
 */
public final class IoProblems {

    /** strerror text (as glibc words it) → errno name, in a fixed order (the first match wins), for the failures storage and output folders meet. */
    private static final List<Map.Entry<String, String>> ERRNO_BY_TEXT = List.of(
            Map.entry("No space left on device", "ENOSPC"),
            Map.entry("Disk quota exceeded", "EDQUOT"),
            Map.entry("Read-only file system", "EROFS"),
            Map.entry("Permission denied", "EACCES"),
            Map.entry("Operation not permitted", "EPERM"),
            Map.entry("Input/output error", "EIO"),
            Map.entry("File too large", "EFBIG"),
            Map.entry("Not a directory", "ENOTDIR"),
            Map.entry("Is a directory", "EISDIR"),
            Map.entry("No such file or directory", "ENOENT"),
            Map.entry("Too many open files", "EMFILE"),
            Map.entry("Cannot allocate memory", "ENOMEM"),
            Map.entry("Operation not supported", "EOPNOTSUPP"),
            Map.entry("Invalid argument", "EINVAL"));

    private IoProblems() {
    }

    /** The cause of {@code failure} (or of the first cause in its chain that says one) in words. */
    public static String describe(Throwable failure) {
        for (Throwable current = failure; current != null; current = current.getCause()) {
            String words = words(current);
            if (words != null) {
                return words;
            }
        }
        String message = failure.getMessage();
        return message == null || message.isBlank() ? "an unexplained input/output failure" : oneLine(message);
    }

    private static String words(Throwable failure) {
        String message = failure.getMessage() == null ? "" : failure.getMessage();
        if (failure instanceof FileSystemException fse && fse.getReason() != null) {
            message = fse.getReason();
        }
        for (Map.Entry<String, String> entry : ERRNO_BY_TEXT) {
            if (message.contains(entry.getKey()) || message.matches("(?s).*\\b" + entry.getValue() + "\\b.*")) {
                return entry.getKey().toLowerCase(Locale.ROOT) + " (" + entry.getValue() + ")";
            }
        }
        return switch (failure) {
            case NoSuchFileException e -> "no such file or folder";
            case AccessDeniedException e -> "permission denied";
            case FileAlreadyExistsException e -> "it already exists";
            case NotDirectoryException e -> "it is not a folder";
            case DirectoryNotEmptyException e -> "the folder is not empty";
            default -> null;
        };
    }

    private static String oneLine(String text) {
        return text.strip().replaceAll("\\s*\\R\\s*", " ");
    }
}
