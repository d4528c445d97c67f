package io.pgharvest.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package rules of docs/architecture.md, read from the compiled classes: a new import that
 * closes a cycle or pulls a framework into the kernel fails the build here.
 */
class ArchitectureTest {

    private static JavaClasses production;

    @BeforeAll
    static void importProductionClasses() {
        production = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.pgharvest");
    }

    @Test
    void packagesFormNoCycle() {
        // Every package is its own slice, sub-packages included (sink and sink.postgres are two).
        slices().matching("io.pgharvest.(**)").should().beFreeOfCycles().check(production);
    }

    @Test
    void modelKernelDependsOnNothingButTheJdk() {
        // Jackson's annotations are metadata only (names of enum values on the wire), no behaviour.
        classes().that().resideInAPackage("io.pgharvest.model..")
                .should().onlyDependOnClassesThat()
                .resideInAnyPackage("io.pgharvest.model..", "java..", "com.fasterxml.jackson.annotation..")
                .check(production);
    }

    @Test
    void supportDependsOnNoDomainPackage() {
        noClasses().that().resideInAPackage("io.pgharvest.support..")
                .should().dependOnClassesThat().resideInAnyPackage("io.pgharvest..")
                .andShould().dependOnClassesThat().resideOutsideOfPackages("io.pgharvest.support..", "java..",
                        "tools.jackson..", "com.fasterxml.jackson..", "org.slf4j..")
                .check(production);
    }

    @Test
    void engineAndSinksNeverImportTheAdminApi() {
        noClasses().that().resideInAnyPackage("io.pgharvest.reaper..", "io.pgharvest.sink..",
                        "io.pgharvest.store..", "io.pgharvest.endpoint..")
                .should().dependOnClassesThat().resideInAnyPackage("io.pgharvest.api..", "io.pgharvest.source..",
                        "io.pgharvest.metric..", "io.pgharvest.pgwatch..")
                .check(production);
    }
}
