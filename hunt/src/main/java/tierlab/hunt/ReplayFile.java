package tierlab.hunt;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import tierlab.engine.persist.AtomicFiles;

/**
 * A saved failure: the shrunk schedule (configuration with its ablation switches, and every step)
 * plus what it violated when it was found. Replaying needs only the file: runs are deterministic,
 * so {@link #replay()} reproduces the same violation at the same step.
 *
 * @param format          file format version
 * @param target          the property or hunt profile that found it (R1, swarm-store, ...)
 * @param seed            the QuickTheories seed that generated it
 * @param check           the violated check
 * @param stepIndex       the step of the violation (-1: the final drain)
 * @param message         the violation's message when it was found
 * @param originalLength  steps before shrinking
 */
public record ReplayFile(int format, String target, long seed, Check check, int stepIndex, String message,
                         int originalLength, Schedule schedule) {

    public static final int FORMAT = 1;
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    public static ReplayFile of(Finding finding) {
        return new ReplayFile(FORMAT, finding.target(), finding.seed(), finding.violation().check(),
                finding.violation().stepIndex(), finding.violation().message(), finding.original().length(), finding.shrunk());
    }

    public RunResult replay() {
        return Runner.run(schedule);
    }

    /** True when the replay violates the same check at the same step as recorded. */
    public boolean reproduces() {
        RunResult result = replay();
        return !result.passed() && result.violation().check() == check && result.violation().stepIndex() == stepIndex;
    }

    /** Writes atomically (temp file, then move), so a hunt interrupted mid-write leaves no half file. */
    public void write(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        AtomicFiles.write(file, temp -> JSON.writeValue(temp.toFile(), this));
    }

    /** A shrunk failure is a few dozen steps; a file this large is not one (refused before parsing). */
    public static final long MAX_FILE_BYTES = 16L << 20;

    public static ReplayFile read(Path file) throws IOException {
        long size = java.nio.file.Files.size(file);
        if (size > MAX_FILE_BYTES) {
            throw new IllegalArgumentException(String.format(java.util.Locale.ROOT, "%s: %,d bytes; a replay file is at"
                    + " most %,d bytes (16 MiB)", file, size, MAX_FILE_BYTES));
        }
        ReplayFile replay = JSON.readValue(file.toFile(), ReplayFile.class);
        return replay.checkedFormat(file.toString());
    }

    public static ReplayFile read(InputStream in, String name) throws IOException {
        return JSON.readValue(in, ReplayFile.class).checkedFormat(name);
    }

    private ReplayFile checkedFormat(String name) {
        if (format != FORMAT) {
            throw new IllegalArgumentException(name + ": replay format " + format + " is not the supported " + FORMAT);
        }
        if (schedule == null || schedule.config() == null) {
            throw new IllegalArgumentException(name + ": field 'schedule' with its 'config' is required");
        }
        return this;
    }

    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
