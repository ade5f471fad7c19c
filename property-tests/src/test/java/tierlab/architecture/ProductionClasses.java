package tierlab.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * The production classes of every module (tests and the architecture fixture left out), imported
 * once per test JVM and shared by the architecture tests: reading every class file takes seconds,
 * and each rule class would otherwise read them again.
 */
final class ProductionClasses {

    private static JavaClasses imported;

    private ProductionClasses() {
    }

    static synchronized JavaClasses get() {
        if (imported == null) {
            imported = new ClassFileImporter()
                    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                    .importPackages("tierlab");
        }
        return imported;
    }
}
