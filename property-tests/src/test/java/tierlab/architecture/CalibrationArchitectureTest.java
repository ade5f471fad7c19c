package tierlab.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.javaparser.JavaParser;
import com.github.javaparser.ParseResult;
import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.body.CallableDeclaration;
import com.tngtech.archunit.core.domain.JavaClasses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Where calibration lives and how charts are written: every calibration class in
 * {@code tierlab.experiments.calibration} (E5, {@code tierlab validate}'s host calibration and
 * {@code tierlab bench pcie} all obtain theirs through {@code Calibration}), no file of it over 500
 * lines and no method over 80; and one class, {@code tierlab.experiments.ChartFiles}, encodes charts
 * as PNG and SVG.
 */
class CalibrationArchitectureTest {

    static final int MAX_FILE_LINES = 500;
    static final int MAX_METHOD_LINES = 80;
    private static final String CALIBRATION = "tierlab.experiments.calibration";
    private static final Path SOURCES = Path.of("..").toAbsolutePath().normalize()
            .resolve("experiments/src/main/java/tierlab/experiments/calibration");

    private static JavaClasses productionClasses;

    @BeforeAll
    static void importProductionClasses() {
        productionClasses = ProductionClasses.all();
    }

    @Test
    void theCalibrationPackageIsImported() {
        // Without this, the rules below would pass on a class path that lacks the package.
        assertTrue(productionClasses.stream().anyMatch(c -> c.getName().equals(CALIBRATION + ".Calibration")),
                "no class " + CALIBRATION + ".Calibration was imported");
    }

    @Test
    void calibrationClassesLiveInTheCalibrationPackage() {
        classes().that().haveSimpleNameContaining("Calibration")
                .should().resideInAPackage(CALIBRATION)
                .because("sweeps, fits, host costs, PCIe and E5's files are one package, so validate and E5 cannot drift apart")
                .check(productionClasses);
        noClasses().that().resideInAPackage("tierlab.bench..")
                .should().dependOnClassesThat().resideInAPackage(CALIBRATION)
                .because("bench holds the benchmarks calibration builds on, never calibration itself")
                .check(productionClasses);
    }

    @Test
    void oneClassEncodesCharts() {
        noClasses().that().doNotHaveFullyQualifiedName("tierlab.experiments.ChartFiles")
                .should().dependOnClassesThat().haveFullyQualifiedName("org.knowm.xchart.BitmapEncoder")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.knowm.xchart.VectorGraphicsEncoder")
                .because("ChartFiles writes every chart's PNG and SVG atomically; a second writer would not")
                .check(productionClasses);
    }

    @Test
    void noCalibrationFileOrMethodIsOverItsLimit() throws IOException {
        List<String> over = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> walk = Files.list(SOURCES)) {
            files = walk.filter(path -> path.toString().endsWith(".java")).sorted().toList();
        }
        assertTrue(files.size() > 10, "found only " + files.size() + " sources in " + SOURCES);
        ParserConfiguration configuration = new ParserConfiguration()
                .setLanguageLevel(ParserConfiguration.LanguageLevel.BLEEDING_EDGE);
        for (Path file : files) {
            String source = Files.readString(file);
            long lines = source.lines().count();
            if (lines > MAX_FILE_LINES) {
                over.add(file.getFileName() + ": " + lines + " lines");
            }
            ParseResult<CompilationUnit> parsed = new JavaParser(configuration).parse(source);
            assertTrue(parsed.isSuccessful() && parsed.getResult().isPresent(), file + " does not parse: " + parsed.getProblems());
            for (CallableDeclaration<?> callable : parsed.getResult().orElseThrow().findAll(CallableDeclaration.class)) {
                callable.getRange().ifPresent(range -> {
                    int length = range.end.line - range.begin.line + 1;
                    if (length > MAX_METHOD_LINES) {
                        over.add(file.getFileName() + ":" + range.begin.line + " " + callable.getNameAsString() + ": " + length + " lines");
                    }
                });
            }
        }
        assertTrue(over.isEmpty(), "over " + MAX_FILE_LINES + " lines a file or " + MAX_METHOD_LINES + " a method:\n"
                + String.join("\n", over));
    }
}
