package io.pgharvest.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The package rules of docs/architecture.md ({@link PackageRules}), read from the compiled
 * classes: a new import that closes a cycle, reaches a layer above, or pulls a framework into the
 * kernel fails the build here. {@link PackageRulesCanFailTest} shows that each rule can fail.
 */
@Tag("fast")
class ArchitectureTest {

    private static final String ROOT = "io.pgharvest";

    private static JavaClasses production;

    @BeforeAll
    static void importProductionClasses() {
        production = ProductionClasses.get();
    }

    @Test
    void packagesFormNoCycle() {
        PackageRules.packagesFormNoCycle(ROOT).check(production);
    }

    @Test
    void modelKernelDependsOnNothingButTheJdk() {
        PackageRules.modelDependsOnNothingButTheJdk(ROOT).check(production);
    }

    @Test
    void supportDependsOnNoDomainPackageAndNoFramework() {
        PackageRules.supportDependsOnNoDomainPackageAndNoFramework(ROOT).check(production);
    }

    @Test
    void noPackageImportsOneAboveIt() {
        PackageRules.noPackageImportsOneAboveIt(ROOT).check(production);
    }

    @Test
    void reaperAndSinksNeverImportEachOther() {
        PackageRules.reaperAndSinksNeverImportEachOther(ROOT).check(production);
    }

    @Test
    void sinkCoreNeverImportsASinkKind() {
        PackageRules.sinkCoreNeverImportsASinkKind(ROOT).check(production);
    }

    @Test
    void reaperUsesNativeMetricsOnlyThroughTheRegistry() {
        PackageRules.reaperUsesNativeMetricsOnlyThroughTheRegistry(ROOT).check(production);
    }

    @Test
    void kindsAreKnownOnlyThroughTheRegistry() {
        PackageRules.kindsAreKnownOnlyThroughTheRegistry(ROOT).check(production);
    }
}
