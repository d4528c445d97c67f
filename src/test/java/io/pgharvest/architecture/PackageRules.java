package io.pgharvest.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.CompositeArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.List;

/**
 * The package rules of docs/architecture.md, written against a root package so that the same
 * rules run on pgharvest's classes ({@code io.pgharvest}, {@link ArchitectureTest}) and on a small
 * tree of deliberately violating classes that shows each rule can fail
 * ({@code io.pgharvest.architecture.violations}, {@link PackageRulesCanFailTest}).
 */
final class PackageRules {

    /**
     * Layers from the bottom up, by a package's first name below the root (sub-packages share
     * their parent's layer: {@code model.connection} is {@code model}, {@code sink.postgres} is
     * {@code sink}); {@code ""} is the root package (the application class). A package may import
     * its own layer and those below, never one above. A package missing here fails the layering
     * rule, so a new package gets its place in docs/architecture.md and here.
     */
    static final List<List<String>> LAYERS = List.of(
            List.of("model", "support"),                          // the kernel and helpers without domain
            List.of("fanout", "embedded"),                        // the metric SQL rewriter; embedded PostgreSQL
            List.of("config"),                                    // process settings
            List.of("store"),                                     // where the configuration lives
            List.of("nativemetric"),                              // metrics without SQL
            List.of("discovery", "host", "serverlog", "insights"), // what sources stand for; native metric kinds
            List.of("kind"),                                      // the kinds of endpoint, one package per family
            List.of("reaper", "sink"),                            // collection engine; delivery
            List.of("lease", "changes"),                          // fleet leases over the reaper; change events before the sinks
            List.of("api"),                                       // the shared web layer
            List.of("source", "metric", "pgwatch", "operations", "window", "demo", "")); // admin API features (window: the recent window), the demo, the application

    private PackageRules() {
    }

    /** Every package is its own slice, sub-packages included (sink and sink.postgres are two). */
    static ArchRule packagesFormNoCycle(String root) {
        return slices().matching(root + ".(**)").should().beFreeOfCycles();
    }

    /** Jackson's annotations are metadata only (names of enum values on the wire), no behaviour. */
    static ArchRule modelDependsOnNothingButTheJdk(String root) {
        return classes().that().resideInAPackage(root + ".model..")
                .should().onlyDependOnClassesThat()
                .resideInAnyPackage(root + ".model..", "java..", "com.fasterxml.jackson.annotation..");
    }

    /**
     * Each dependency of support is checked on its own: one to the domain fails, one to a framework
     * fails. Libraries allowed: Jackson, SLF4J, HikariCP ({@code SmallPools} configures pools), and
     * pgjdbc ({@code support.wire}: the socket factories pgjdbc reads PostgreSQL's protocol through).
     */
    static ArchRule supportDependsOnNoDomainPackageAndNoFramework(String root) {
        return classes().that().resideInAPackage(root + ".support..")
                .should().onlyDependOnClassesThat()
                .resideInAnyPackage(root + ".support..", "java..", "javax.net..", "tools.jackson..", "com.fasterxml.jackson..",
                        "org.slf4j..", "com.zaxxer.hikari..", "org.postgresql..");
    }

    /** No package imports one above it in {@link #LAYERS}, and every package has a layer. */
    static ArchRule noPackageImportsOneAboveIt(String root) {
        return classes().that().resideInAPackage(root + "..").should(new ImportOnlyDownward(root))
                .as("no package under " + root + " imports a package of a layer above its own");
    }

    /** The engine publishes through model.MeasurementPublisher; the sinks never drive the engine. */
    static ArchRule reaperAndSinksNeverImportEachOther(String root) {
        return CompositeArchRule
                .of(noClasses().that().resideInAPackage(root + ".reaper..")
                        .should().dependOnClassesThat().resideInAPackage(root + ".sink.."))
                .and(noClasses().that().resideInAPackage(root + ".sink..")
                        .should().dependOnClassesThat().resideInAPackage(root + ".reaper.."))
                .as("the reaper and the sinks never import each other");
    }

    /** Sink kinds plug in as SinkPlugin registrations; the core does not know them. */
    static ArchRule sinkCoreNeverImportsASinkKind(String root) {
        return noClasses().that().resideInAPackage(root + ".sink")
                .should().dependOnClassesThat().resideInAPackage(root + ".sink.*..");
    }

    /** Native metrics are found in the registry; the engine never names an implementation. */
    static ArchRule reaperUsesNativeMetricsOnlyThroughTheRegistry(String root) {
        return noClasses().that().resideInAPackage(root + ".reaper..")
                .should().dependOnClassesThat().resideInAnyPackage(root + ".host..", root + ".serverlog..",
                        root + ".insights..");
    }

    /** The engine, the store, the sinks and the API know kinds only through the registry in {@code kind}. */
    static ArchRule kindsAreKnownOnlyThroughTheRegistry(String root) {
        return noClasses().that().resideOutsideOfPackage(root + ".kind..")
                .should().dependOnClassesThat().resideInAPackage(root + ".kind.*..")
                .as("only a kind's own package names its classes; everyone else goes through " + root + ".kind");
    }

    static List<ArchRule> all(String root) {
        return List.of(packagesFormNoCycle(root), modelDependsOnNothingButTheJdk(root),
                supportDependsOnNoDomainPackageAndNoFramework(root), noPackageImportsOneAboveIt(root),
                reaperAndSinksNeverImportEachOther(root), sinkCoreNeverImportsASinkKind(root),
                reaperUsesNativeMetricsOnlyThroughTheRegistry(root), kindsAreKnownOnlyThroughTheRegistry(root));
    }

    /** The layer of a package under {@code root}, or -1 when it has none. */
    static int layerOf(String root, String packageName) {
        if (!packageName.equals(root) && !packageName.startsWith(root + ".")) {
            return -1;
        }
        String relative = packageName.equals(root) ? "" : packageName.substring(root.length() + 1);
        String first = relative.contains(".") ? relative.substring(0, relative.indexOf('.')) : relative;
        for (int layer = 0; layer < LAYERS.size(); layer++) {
            if (LAYERS.get(layer).contains(first)) {
                return layer;
            }
        }
        return -1;
    }

    private static final class ImportOnlyDownward extends ArchCondition<JavaClass> {

        private final String root;

        ImportOnlyDownward(String root) {
            super("import only packages of its own layer or below");
            this.root = root;
        }

        @Override
        public void check(JavaClass origin, ConditionEvents events) {
            int own = layerOf(root, origin.getPackageName());
            if (own < 0) {
                events.add(SimpleConditionEvent.violated(origin, "package " + origin.getPackageName()
                        + " has no layer: give it one in PackageRules.LAYERS and docs/architecture.md"));
                return;
            }
            for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
                String target = dependency.getTargetClass().getPackageName();
                int layer = layerOf(root, target);
                if (layer > own) {
                    events.add(SimpleConditionEvent.violated(dependency, dependency.getDescription()
                            + ": " + target + " (layer " + layer + ") is above " + origin.getPackageName()
                            + " (layer " + own + ")"));
                }
            }
        }
    }
}
