package io.pgharvest.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/** pgharvest's compiled classes, read once per test JVM: reading them takes ArchUnit most of a test's time. */
final class ProductionClasses {

    static final String ROOT = "io.pgharvest";

    private static JavaClasses classes;

    private ProductionClasses() {
    }

    static synchronized JavaClasses get() {
        if (classes == null) {
            classes = new ClassFileImporter()
                    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                    .importPackages(ROOT);
        }
        return classes;
    }
}
