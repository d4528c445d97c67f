package io.pgharvest.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import io.pgharvest.architecture.violations.api.ApiCallingTheStore;
import io.pgharvest.architecture.violations.host.HostMetricKind;
import io.pgharvest.architecture.violations.kind.KindRegistry;
import io.pgharvest.architecture.violations.kind.pooler.PoolerKind;
import io.pgharvest.architecture.violations.model.KernelUsingSpring;
import io.pgharvest.architecture.violations.model.KernelValue;
import io.pgharvest.architecture.violations.pgwatch.format.FormatNamingAFileStore;
import io.pgharvest.architecture.violations.pgwatch.format.FormatUsingTheContract;
import io.pgharvest.architecture.violations.reaper.ReaperNamingAKind;
import io.pgharvest.architecture.violations.reaper.ReaperNamingANativeMetric;
import io.pgharvest.architecture.violations.reaper.ReaperOpeningAStore;
import io.pgharvest.architecture.violations.reaper.ReaperWritingToASink;
import io.pgharvest.architecture.violations.sink.Sink;
import io.pgharvest.architecture.violations.sink.SinkCore;
import io.pgharvest.architecture.violations.sink.postgres.PostgresSinkPlugin;
import io.pgharvest.architecture.violations.store.StoreCallingTheApi;
import io.pgharvest.architecture.violations.store.StoreContract;
import io.pgharvest.architecture.violations.store.StoreContractNamingItsFileStore;
import io.pgharvest.architecture.violations.store.choice.StoreChoice;
import io.pgharvest.architecture.violations.store.file.FileStoreKind;
import io.pgharvest.architecture.violations.store.file.FileStoreNamingThePostgresStore;
import io.pgharvest.architecture.violations.store.postgres.PostgresStoreKind;
import io.pgharvest.architecture.violations.support.HelperKnowingTheDomain;
import io.pgharvest.architecture.violations.support.HelperUsingSpring;
import io.pgharvest.architecture.violations.unlayered.PackageWithoutALayer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every rule of {@link PackageRules} run against a few deliberately violating classes (package
 * {@code violations}, which mirrors pgharvest's package names): a rule that passes here could
 * never fail on pgharvest either. Each case imports only the classes it needs, and checks that the
 * same rule passes on the compliant classes next to them.
 */
@Tag("fast")
class PackageRulesCanFailTest {

    private static final String ROOT = "io.pgharvest.architecture.violations";

    @Test
    void aCycleBetweenTwoPackagesFails() {
        assertFails(PackageRules.packagesFormNoCycle(ROOT), classes(StoreCallingTheApi.class, ApiCallingTheStore.class),
                "Cycle detected");
        assertPasses(PackageRules.packagesFormNoCycle(ROOT), classes(ApiCallingTheStore.class, KernelValue.class));
    }

    @Test
    void aFrameworkInTheKernelFails() {
        assertFails(PackageRules.modelDependsOnNothingButTheJdk(ROOT), classes(KernelUsingSpring.class),
                "org.springframework.util.StringUtils");
        assertPasses(PackageRules.modelDependsOnNothingButTheJdk(ROOT), classes(KernelValue.class));
    }

    @Test
    void supportImportingOnlyTheDomainFails() {
        assertFails(PackageRules.supportDependsOnNoDomainPackageAndNoFramework(ROOT),
                classes(HelperKnowingTheDomain.class), "KernelValue");
    }

    @Test
    void supportImportingOnlyAFrameworkFails() {
        assertFails(PackageRules.supportDependsOnNoDomainPackageAndNoFramework(ROOT),
                classes(HelperUsingSpring.class), "org.springframework.util.StringUtils");
    }

    @Test
    void aPackageImportingOneAboveItFails() {
        assertFails(PackageRules.noPackageImportsOneAboveIt(ROOT), classes(StoreCallingTheApi.class),
                "violations.api (layer 9) is above io.pgharvest.architecture.violations.store (layer 3)");
        assertPasses(PackageRules.noPackageImportsOneAboveIt(ROOT), classes(ApiCallingTheStore.class));
    }

    @Test
    void aPackageWithoutALayerFails() {
        assertFails(PackageRules.noPackageImportsOneAboveIt(ROOT), classes(PackageWithoutALayer.class),
                "package io.pgharvest.architecture.violations.unlayered has no layer");
    }

    @Test
    void theReaperImportingASinkFails() {
        assertFails(PackageRules.reaperAndSinksNeverImportEachOther(ROOT),
                classes(ReaperWritingToASink.class, Sink.class), "SinkCore");
        assertPasses(PackageRules.reaperAndSinksNeverImportEachOther(ROOT),
                classes(ReaperNamingANativeMetric.class, Sink.class));
    }

    @Test
    void theSinkCoreImportingASinkKindFails() {
        assertFails(PackageRules.sinkCoreNeverImportsASinkKind(ROOT), classes(SinkCore.class), "PostgresSinkPlugin");
        assertPasses(PackageRules.sinkCoreNeverImportsASinkKind(ROOT), classes(Sink.class, PostgresSinkPlugin.class));
    }

    @Test
    void theReaperNamingANativeMetricImplementationFails() {
        assertFails(PackageRules.reaperUsesNativeMetricsOnlyThroughTheRegistry(ROOT),
                classes(ReaperNamingANativeMetric.class), "HostMetricKind");
        assertPasses(PackageRules.reaperUsesNativeMetricsOnlyThroughTheRegistry(ROOT),
                classes(ReaperWritingToASink.class, HostMetricKind.class));
    }

    @Test
    void theReaperNamingAKindsClassFails() {
        assertFails(PackageRules.kindsAreKnownOnlyThroughTheRegistry(ROOT), classes(ReaperNamingAKind.class),
                "PoolerKind");
        assertPasses(PackageRules.kindsAreKnownOnlyThroughTheRegistry(ROOT),
                classes(PoolerKind.class, KindRegistry.class, ReaperWritingToASink.class));
    }

    @Test
    void theStoreContractNamingAStoreImplementationFails() {
        assertFails(PackageRules.storeContractNeverImportsItsParts(ROOT),
                classes(StoreContractNamingItsFileStore.class, FileStoreKind.class), "FileStoreKind");
        assertPasses(PackageRules.storeContractNeverImportsItsParts(ROOT),
                classes(StoreContract.class, StoreCallingTheApi.class, FileStoreKind.class));
    }

    @Test
    void oneStoreImplementationNamingTheOtherFails() {
        assertFails(PackageRules.storeImplementationsNeverImportEachOther(ROOT),
                classes(FileStoreNamingThePostgresStore.class, PostgresStoreKind.class), "PostgresStoreKind");
        assertPasses(PackageRules.storeImplementationsNeverImportEachOther(ROOT),
                classes(FileStoreKind.class, PostgresStoreKind.class, StoreContract.class));
    }

    @Test
    void anythingButTheChoiceNamingAStoreImplementationFails() {
        assertFails(PackageRules.storeImplementationsAreNamedOnlyByTheChoice(ROOT),
                classes(ReaperOpeningAStore.class, PostgresStoreKind.class), "ReaperOpeningAStore");
        assertPasses(PackageRules.storeImplementationsAreNamedOnlyByTheChoice(ROOT),
                classes(StoreChoice.class, FileStoreKind.class, PostgresStoreKind.class, ReaperWritingToASink.class));
    }

    @Test
    void pgwatchsFormatNamingAStoreImplementationFails() {
        assertFails(PackageRules.pgwatchFormatKnowsOnlyTheStoresContract(ROOT),
                classes(FormatNamingAFileStore.class, FileStoreKind.class), "FileStoreKind");
        assertPasses(PackageRules.pgwatchFormatKnowsOnlyTheStoresContract(ROOT),
                classes(FormatUsingTheContract.class, StoreContract.class));
    }

    @Test
    void aStorePackageHoldingMoreClassesThanItsBoundFails() {
        JavaClasses store = classes(StoreContract.class, StoreCallingTheApi.class, FileStoreKind.class);
        assertFails(PackageRules.storeHoldsAtMost(ROOT, 1), store, "holds 2 classes, more than 1");
        assertPasses(PackageRules.storeHoldsAtMost(ROOT, 2), store);
    }

    @Test
    void everyRuleHasACaseHere() {
        // A rule added to PackageRules.all gets its violating class and a case above.
        assertThat(PackageRules.all(ROOT)).hasSize(13);
    }

    private static JavaClasses classes(Class<?>... classes) {
        return new ClassFileImporter().importClasses(classes);
    }

    private static void assertFails(ArchRule rule, JavaClasses classes, String named) {
        EvaluationResult result = rule.evaluate(classes);
        assertThat(result.hasViolation()).as(rule.getDescription()).isTrue();
        assertThat(String.join("\n", result.getFailureReport().getDetails())).contains(named);
    }

    private static void assertPasses(ArchRule rule, JavaClasses classes) {
        EvaluationResult result = rule.evaluate(classes);
        assertThat(result.hasViolation()).as(String.join("\n", result.getFailureReport().getDetails())).isFalse();
    }
}
