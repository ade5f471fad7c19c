package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.metrics.PassMetric;

/** The metric list and the policy registry drive the columns, the loader's checks and the catalogue's tables. */
class MetricsCatalogueTest {

    /** Tests run in the module folder. */
    private static final Path CATALOGUE = Path.of("catalog", "README.md");
    @Test
    void theCatalogueTablesAreTheGeneratedOnes() throws IOException {
        checkSection("metrics", Metrics.markdownTable());
        checkSection("policies", StoreSections.policyTable());
    }

    /** The text between {@code <!-- NAME: begin -->} and {@code <!-- NAME: end -->} must be {@code expected}. */
    private static void checkSection(String name, String expected) throws IOException {
        String begin = "<!-- " + name + ": begin -->\n";
        String end = "<!-- " + name + ": end -->";
        String text = Files.readString(CATALOGUE, StandardCharsets.UTF_8);
        int from = text.indexOf(begin);
        int to = text.indexOf(end);
        assertTrue(from >= 0 && to > from, "the catalogue marks its " + name + " table with " + begin.strip() + " ... " + end);
        String actual = text.substring(from + begin.length(), to);
        if (!actual.equals(expected) && Boolean.getBoolean("tierlab.updateDocs")) {
            Files.writeString(CATALOGUE, text.substring(0, from + begin.length()) + expected + text.substring(to),
                    StandardCharsets.UTF_8);
            actual = expected;
        }
        assertEquals(expected, actual, "the catalogue's " + name + " table is out of date: rerun MetricsCatalogueTest"
                + " with -Dtierlab.updateDocs=true");
    }

    @Test
    void namesAreUniqueAndEveryPassGetsEveryMetricInDeclarationOrder() {
        Set<String> seen = new HashSet<>();
        for (PassMetric metric : PassMetric.values()) {
            assertTrue(seen.add(metric.metricName()), "duplicate " + metric.metricName());
            assertTrue(!metric.unit().isBlank() && !metric.doc().isBlank(), metric.metricName() + " has a unit and a doc");
        }
        List<String> names = Metrics.names(List.of("cold", "warm"));
        assertEquals(2 * PassMetric.values().length + Metrics.RUN.size(), names.size());
        assertEquals("cold.requests", names.getFirst());
        assertEquals("warm." + PassMetric.values()[PassMetric.values().length - 1].metricName(),
                names.get(2 * PassMetric.values().length - 1));
        assertEquals(Metrics.RUN, names.subList(2 * PassMetric.values().length, names.size()));
    }
}
