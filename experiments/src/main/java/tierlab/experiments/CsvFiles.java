package tierlab.experiments;

import java.io.FilterWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import tech.tablesaw.api.Table;

/**
 * Writes a table as CSV so that a failed write says why. The CSV library wraps the writer's
 * {@link IOException} in its own exception and closes the writer, and the flush that follows fails with
 * "Error flushing output. No writer provided", so a full disk read as a defect. Here the table goes
 * through a writer that keeps its first failure, and that failure is what the caller gets: a
 * {@link FileSystemException} naming the file, whose reason is the system's ("No space left on device").
 */
public final class CsvFiles {

    private CsvFiles() {
    }

    /** Writes {@code table} to {@code file} as UTF-8 CSV; a failed write is an {@link IOException} naming the file. */
    public static void write(Table table, Path file) throws IOException {
        FailureKeepingWriter out = new FailureKeepingWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8));
        try {
            table.write().csv(out);
            out.close();
        } catch (IOException | RuntimeException e) {
            IOException cause = out.failure != null ? out.failure : e instanceof IOException io ? io : null;
            out.closeQuietly();
            if (cause == null) {
                throw e; // not a file problem: a defect, which keeps its type and stack trace
            }
            throw fileProblem(file, cause);
        }
    }

    private static IOException fileProblem(Path file, IOException cause) {
        if (cause instanceof FileSystemException named && named.getFile() != null) {
            return named;
        }
        FileSystemException named = new FileSystemException(file.toString(), null,
                cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage());
        named.initCause(cause);
        return named;
    }

    /** A writer that remembers the first failure of the writer below it and can be closed twice. */
    private static final class FailureKeepingWriter extends FilterWriter {
        private IOException failure;
        private boolean closed;

        FailureKeepingWriter(Writer below) {
            super(below);
        }

        @Override
        public void write(int c) throws IOException {
            keep(() -> super.write(c));
        }

        @Override
        public void write(char[] buffer, int offset, int length) throws IOException {
            keep(() -> super.write(buffer, offset, length));
        }

        @Override
        public void write(String text, int offset, int length) throws IOException {
            keep(() -> super.write(text, offset, length));
        }

        @Override
        public void flush() throws IOException {
            keep(super::flush);
        }

        @Override
        public void close() throws IOException {
            if (!closed) {
                closed = true;
                keep(super::close);
            }
        }

        void closeQuietly() {
            try {
                close();
            } catch (IOException ignored) {
                // The first failure is the one reported.
            }
        }

        private interface Operation {
            void run() throws IOException;
        }

        private void keep(Operation operation) throws IOException {
            if (failure != null) {
                throw failure; // the data is already incomplete: nothing more goes below
            }
            try {
                operation.run();
            } catch (IOException e) {
                failure = e;
                throw e;
            }
        }
    }
}
