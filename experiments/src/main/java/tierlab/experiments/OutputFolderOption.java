package tierlab.experiments;

import java.nio.file.Path;
import picocli.CommandLine.Option;
import tierlab.engine.persist.CallerPaths;

/**
 * {@code --out DIR} of the commands that write out/NAME from an experiment or validation file's
 * name, replacing the folder whole (a picocli mixin).
 */
public final class OutputFolderOption {

    @Option(names = "--out", paramLabel = "DIR", description = "Output folder, replaced whole [default: out/NAME, NAME from the file].")
    private Path folder;

    /** Takes a relative --out from the folder tierlab was called in (the launcher's, not the repository's). */
    public void resolveAgainstCaller() {
        folder = CallerPaths.resolve(folder);
    }

    /** The folder given, or null when --out was not. */
    public Path given() {
        return folder;
    }

    /** The folder given, else out/NAME. */
    public Path orDefault(String name) {
        return folder != null ? folder : Path.of("out", name);
    }
}
