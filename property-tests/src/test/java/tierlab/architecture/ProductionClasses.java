package tierlab.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * The production classes of every module (test classes, and so the rule fixtures, left out), as
 * the architecture tests check them. Imported once per test JVM and shared: the import reads every
 * class file of the project, and the result is immutable.
 *
 * <p>ArchUnit's {@code DO_NOT_INCLUDE_TESTS} knows test-class folders but not Maven test jars, and
 * this module's tests have model's test jar (the shared fixtures, {@code tierlab.model.testkit})
 * on their class path: its classes are test code too, so {@code -tests.jar} locations are left out.
 */
final class ProductionClasses {
    private static JavaClasses imported;

    private ProductionClasses() {}

    static synchronized JavaClasses all() {
        if (imported == null) {
            imported = new ClassFileImporter()
                    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                    .withImportOption(location -> !location.contains("-tests.jar"))
                    .importPackages("tierlab");
        }
        return imported;
    }
}
