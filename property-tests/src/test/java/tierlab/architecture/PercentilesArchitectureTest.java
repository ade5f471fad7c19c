package tierlab.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;

/**
 * One place defines the project's medians and percentiles, {@code tierlab.metrics.Percentiles}: a
 * class that reached for Commons Math's {@code Percentile} or {@code Median} itself would bring a
 * definition of its own (estimation type, even counts, no values), and its figures would disagree
 * with the rest without anyone seeing why.
 */
class PercentilesArchitectureTest {

    static final String PERCENTILES = "tierlab.metrics.Percentiles";
    private static final String RANK = "org.apache.commons.math3.stat.descriptive.rank.";

    static ArchRule onlyPercentilesUsesCommonsMathRanks() {
        return noClasses().that().doNotHaveFullyQualifiedName(PERCENTILES)
                .should().dependOnClassesThat().haveFullyQualifiedName(RANK + "Percentile")
                .orShould().dependOnClassesThat().haveFullyQualifiedName(RANK + "Median")
                .because("every median and percentile is one of Percentiles' named definitions");
    }

    @Test
    void noProductionClassButPercentilesUsesCommonsMathsPercentileOrMedian() {
        JavaClasses productionClasses = ProductionClasses.all();
        // Without Percentiles among the imported classes the rule would pass over an empty project.
        assertTrue(productionClasses.contain(PERCENTILES), "tierlab.metrics.Percentiles was not imported");
        onlyPercentilesUsesCommonsMathRanks().check(productionClasses);
    }

    @Test
    void theRuleFiresOnAClassThatUsesCommonsMathsMedian() {
        JavaClasses self = new ClassFileImporter().importClasses(OwnMedian.class, OwnPercentile.class);
        assertFalse(self.isEmpty(), "the rule's own examples were not imported");
        EvaluationResult result = onlyPercentilesUsesCommonsMathRanks().evaluate(self);
        assertTrue(result.hasViolation(), "the rule did not fire");
        String report = String.join("\n", result.getFailureReport().getDetails());
        assertTrue(report.contains(OwnMedian.class.getName()) && report.contains(RANK + "Median"), report);
        assertTrue(report.contains(OwnPercentile.class.getName()) && report.contains(RANK + "Percentile"), report);
    }

    /** What the rule forbids: a median of its own, straight from Commons Math. */
    static final class OwnMedian {
        static double median(double[] values) {
            return new org.apache.commons.math3.stat.descriptive.rank.Median().evaluate(values);
        }
    }

    /** And a percentile of its own. */
    static final class OwnPercentile {
        static double p90(double[] values) {
            return new org.apache.commons.math3.stat.descriptive.rank.Percentile(90).evaluate(values);
        }
    }
}
