package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A catalogue discussion states no figure of its own (experiments/catalog/README.md, "reference"): every
 * number about tierlab's runs is a check or a row the report computes from results.csv, and the prose
 * refers to checks by number. So the prose cannot go stale when the model changes; the checks say PASS
 * or FAIL instead.
 */
class CatalogueDiscussionTest {

    /** Tests run in the module folder. */
    private static final Path CATALOGUE = Path.of("catalog");

    /** "check 3", "checks 4 and 5", "checks 6 to 8", "checks 1, 2 and 9": the only digits a discussion may hold. */
    private static final Pattern CHECK_REFERENCE =
            Pattern.compile("\\bchecks?\\s+(\\d+(?:\\s*(?:,|and|to|–)\\s*\\d+)*)");
    /** Setting names and values in inline code (`write-after-hits:2`) are not figures. */
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");
    /** Names that begin with a letter carry digits without being figures: E1, R13, L2, p99, S3-FIFO. */
    private static final Pattern NAME_WITH_DIGITS = Pattern.compile("\\b[A-Za-z][A-Za-z0-9_-]*");
    private static final Pattern SPELLED_COUNT = Pattern.compile("\\b(two|three|four|five|six|seven|eight|nine|ten"
            + "|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty"
            + "|fifty|sixty|seventy|eighty|ninety|hundreds?|thousands?|millions?|billions?|dozens?|twice|thrice"
            + "|half|halves|halved|halving)\\b|\\b[a-z]+-fold\\b|\\b(two|three|four|five|ten|hundred)fold\\b",
            Pattern.CASE_INSENSITIVE);

    @Test
    void everyDiscussionStatesNoFigureOfItsOwnAndRefersToChecksThatExist() throws IOException {
        List<String> problems = new ArrayList<>();
        int discussions = 0;
        for (Path file : catalogueFiles()) {
            JsonNode reference = new ObjectMapper(new YAMLFactory()).readTree(file.toFile()).path("reference");
            JsonNode discussion = reference.path("discussion");
            if (!discussion.isTextual()) {
                continue;
            }
            discussions++;
            problems.addAll(problems(file.getFileName().toString(), discussion.asText(), reference.path("checks").size()));
        }
        assertTrue(discussions >= 10, "the catalogue's discussions were found (" + discussions + ")");
        assertEquals(List.of(), problems, "catalogue discussions with figures of their own or unknown checks");
    }

    /** The rule catches what it is meant to, and lets through what the README allows. */
    @Test
    void theRuleTellsFiguresFromNamesAndCheckReferences() {
        assertEquals(List.of(), problems("f", "Reads fall (checks 1 and 2, check 3, checks 4 to 5); `write-after-hits:2`, "
                + "E1, R13, L2, p99, S3-FIFO and one policy.", 5));
        assertFalse(problems("f", "TTFT drops by 25%.", 0).isEmpty());
        assertFalse(problems("f", "about 1.9 s", 0).isEmpty());
        assertFalse(problems("f", "it reads twice as much", 0).isEmpty());
        assertFalse(problems("f", "three policies lead", 0).isEmpty());
        assertFalse(problems("f", "a ten-fold rise", 0).isEmpty());
        assertFalse(problems("f", "as check 4 shows", 3).isEmpty(), "a check the file does not have");
        assertFalse(problems("f", "as check 0 shows", 3).isEmpty());
    }

    private static List<Path> catalogueFiles() throws IOException {
        try (Stream<Path> files = Files.list(CATALOGUE)) {
            return files.filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml")).sorted().toList();
        }
    }

    /** Each figure, spelled-out count and reference to a missing check in {@code discussion}, one line each. */
    static List<String> problems(String file, String discussion, int checkCount) {
        List<String> problems = new ArrayList<>();
        String prose = INLINE_CODE.matcher(discussion).replaceAll(" ");
        Matcher reference = CHECK_REFERENCE.matcher(prose);
        while (reference.find()) {
            for (String number : reference.group(1).split("\\D+")) {
                int check = Integer.parseInt(number);
                if (check < 1 || check > checkCount) {
                    problems.add(file + ": refers to check " + check + " of " + checkCount);
                }
            }
        }
        String rest = NAME_WITH_DIGITS.matcher(CHECK_REFERENCE.matcher(prose).replaceAll(" ")).replaceAll(" ");
        Matcher figure = Pattern.compile("\\S*\\d\\S*").matcher(rest);
        while (figure.find()) {
            problems.add(file + ": a figure of its own: " + figure.group());
        }
        Matcher count = SPELLED_COUNT.matcher(prose);
        while (count.find()) {
            problems.add(file + ": a spelled-out count: " + count.group());
        }
        return problems;
    }
}
