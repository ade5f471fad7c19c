package tierlab.experiments;

import picocli.CommandLine.Option;

/** {@code -q/--quiet}, the same on every command that prints progress (a picocli mixin). */
public final class QuietOption {

    @Option(names = {"-q", "--quiet"}, description = "No progress output; only the summary at the end.")
    private boolean quiet;

    public boolean quiet() {
        return quiet;
    }
}
