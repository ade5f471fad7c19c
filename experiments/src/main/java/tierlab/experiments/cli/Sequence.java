package tierlab.experiments.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Several tierlab command lines in one JVM, one after the other, separated by a lone {@code ;}
 * argument: {@code Sequence run experiments/catalog/quickstart.yaml ; replay}. It exists for the
 * distribution's ahead-of-time cache (tools/dist.sh, docs/distribution.md): a JVM started with
 * {@code -XX:AOTCacheOutput} writes one cache from everything it ran, so training it on both the
 * quickstart and a replay needs both in the same JVM. Stops at the first command that fails and
 * exits with its code.
 */
public final class Sequence {
    private Sequence() {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String[] args) {
        for (String[] commandLine : split(args)) {
            int code = Main.newCommandLine().execute(commandLine);
            if (code != 0) {
                return code;
            }
        }
        return 0;
    }

    /** The command lines between lone ';' arguments; empty ones (';' at either end, ';;') are skipped. */
    static List<String[]> split(String[] args) {
        List<String[]> commandLines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= args.length; i++) {
            if (i == args.length || args[i].equals(";")) {
                if (i > start) {
                    commandLines.add(Arrays.copyOfRange(args, start, i));
                }
                start = i + 1;
            }
        }
        return commandLines;
    }
}
