package tierlab.experiments.validate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The accuracy tables committed in the README and docs/accuracy.md are what {@code tierlab accuracy}
 * writes from the committed validate outputs, with the runs and labels docs/accuracy.md's regenerate
 * command names: a change to the tables' code or to those files that alters a table fails here.
 */
class CommittedAccuracyTablesTest {

    private static final Path ROOT = Path.of("..");
    private static final Path ACCURACY = ROOT.resolve("docs/accuracy.md");

    @Test
    void theCommittedTablesRegenerateByteForByte() throws IOException {
        List<AccuracyCommand.Run> runs = new ArrayList<>();
        for (String argument : regenerateArguments()) {
            int equals = argument.indexOf('=');
            runs.add(AccuracyCommand.read(argument.substring(0, equals) + "=" + ROOT.resolve(argument.substring(equals + 1))));
        }
        String shortTable = AccuracyCommand.shortTable(runs, true);
        String fullTable = AccuracyCommand.shortTable(runs, false) + "\n" + AccuracyCommand.fullTable(runs);
        for (Path file : List.of(ROOT.resolve("README.md"), ACCURACY)) {
            String text = Files.readString(file);
            String regenerated = AccuracyCommand.replace(file, text, AccuracyCommand.BEGIN, AccuracyCommand.END, shortTable, true);
            regenerated = AccuracyCommand.replace(file, regenerated, AccuracyCommand.FULL_BEGIN, AccuracyCommand.FULL_END, fullTable,
                    false);
            assertEquals(text, regenerated, file + " differs from what tierlab accuracy writes from the committed runs");
        }
    }

    /** The LABEL=DIR arguments of the regenerate command in docs/accuracy.md (its first ./tierlab accuracy block). */
    private static List<String> regenerateArguments() throws IOException {
        String text = Files.readString(ACCURACY);
        int from = text.indexOf("./tierlab accuracy ");
        String command = text.substring(from, text.indexOf("--update", from)).replace("\\\n", " ");
        List<String> arguments = new ArrayList<>();
        java.util.regex.Matcher quoted = java.util.regex.Pattern.compile("\"([^\"]+=[^\"]+)\"").matcher(command);
        while (quoted.find()) {
            arguments.add(quoted.group(1));
        }
        assertEquals(3, arguments.size(), "runs named by docs/accuracy.md's regenerate command: " + command);
        return arguments;
    }
}
