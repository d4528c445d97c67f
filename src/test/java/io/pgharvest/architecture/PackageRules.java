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
     * {@code sink}) unless a sub-package is listed itself ({@code pgwatch.format}, pgwatch's file
     * format, sits with the store that writes it, below the pgwatch import feature); {@code ""} is
     * the root package (the application class). A package may import its own layer and those below,
     * never one above. A package missing here fails the layering rule, so a new package gets its
     * place in docs/architecture.md and here.
     */
    static final List<List<String>> LAYERS = List.of(
            List.of("model", "support"),                          // the kernel and helpers without domain
            List.of("fanout", "embedded"),                        // the metric SQL rewriter; embedded PostgreSQL
            List.of("config"),                                    // process settings
            List.of("store", "pgwatch.format"),                   // where the configuration lives; pgwatch's YAML format
            List.of("nativemetric"),                              // metrics without SQL
            List.of("discovery", "host", "serverlog", "insights"), // what sources stand for; native metric kinds
            List.of("kind"),                                      // the kinds of endpoint, one package per family
            List.of("reaper", "sink"),                            // collection engine; delivery
            List.of("lease", "changes"),                          // fleet leases over the reaper; change events before the sinks
            List.of("api"),                                       // the shared web layer
            List.of("source", "metric", "pgwatch", "operations", "window", "history", "alert", "logevents", "demo", "")); // admin API features (window: the recent window; history: reading it back from stores; alert: rules, evaluation, notifications; logevents: the latest log events), the demo, the application

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

    /** The contract ({@code store}) is what everyone else uses; it knows none of the parts that implement it. */
    static ArchRule storeContractNeverImportsItsParts(String root) {
        return noClasses().that().resideInAPackage(root + ".store")
                .should().dependOnClassesThat().resideInAPackage(root + ".store.*..")
                .as("the store's contract imports none of the store's sub-packages");
    }

    /** The file store and the PostgreSQL store share only the contract and its state, never each other. */
    static ArchRule storeImplementationsNeverImportEachOther(String root) {
        return CompositeArchRule
                .of(noClasses().that().resideInAPackage(root + ".store.file..")
                        .should().dependOnClassesThat().resideInAPackage(root + ".store.postgres.."))
                .and(noClasses().that().resideInAPackage(root + ".store.postgres..")
                        .should().dependOnClassesThat().resideInAPackage(root + ".store.file.."))
                .as("the file store and the PostgreSQL store never import each other");
    }

    /** Only the choice of store names an implementation; the engine, the API and the rest use the contract. */
    static ArchRule storeImplementationsAreNamedOnlyByTheChoice(String root) {
        return noClasses().that().resideOutsideOfPackages(root + ".store.file..", root + ".store.postgres..",
                        root + ".store.choice..")
                .should().dependOnClassesThat().resideInAnyPackage(root + ".store.file..", root + ".store.postgres..")
                .as("only " + root + ".store.choice names the file store or the PostgreSQL store");
    }

    /**
     * pgwatch's file format reads and writes pgwatch's YAML for whoever asks (the stores, the import):
     * it may use the store's contract and index, never a store's implementation nor the import feature.
     */
    static ArchRule pgwatchFormatKnowsOnlyTheStoresContract(String root) {
        return noClasses().that().resideInAPackage(root + ".pgwatch.format..")
                .should().dependOnClassesThat().resideInAnyPackage(root + ".store.*..", root + ".pgwatch")
                .as("pgwatch's format imports only the store's contract, no store implementation and not the import");
    }

    /** The store package itself holds at most {@code max} top-level classes: its contract and index. */
    static ArchRule storeHoldsAtMost(String root, int max) {
        return classes().that().resideInAPackage(root + ".store").and().areTopLevelClasses()
                .should(new AtMost(max, root + ".store"))
                .as(root + ".store holds at most " + max + " classes directly (its contract and index)");
    }

    static List<ArchRule> all(String root) {
        return List.of(packagesFormNoCycle(root), modelDependsOnNothingButTheJdk(root),
                supportDependsOnNoDomainPackageAndNoFramework(root), noPackageImportsOneAboveIt(root),
                reaperAndSinksNeverImportEachOther(root), sinkCoreNeverImportsASinkKind(root),
                reaperUsesNativeMetricsOnlyThroughTheRegistry(root), kindsAreKnownOnlyThroughTheRegistry(root),
                storeContractNeverImportsItsParts(root), storeImplementationsNeverImportEachOther(root),
                storeImplementationsAreNamedOnlyByTheChoice(root), pgwatchFormatKnowsOnlyTheStoresContract(root),
                storeHoldsAtMost(root, 12));
    }

    /** The layer of a package under {@code root}, or -1 when it has none. */
    static int layerOf(String root, String packageName) {
        if (!packageName.equals(root) && !packageName.startsWith(root + ".")) {
            return -1;
        }
        String relative = packageName.equals(root) ? "" : packageName.substring(root.length() + 1);
        for (int layer = 0; layer < LAYERS.size(); layer++) {
            for (String listed : LAYERS.get(layer)) {
                if (listed.contains(".") && (relative.equals(listed) || relative.startsWith(listed + "."))) {
                    return layer;
                }
            }
        }
        String first = relative.contains(".") ? relative.substring(0, relative.indexOf('.')) : relative;
        for (int layer = 0; layer < LAYERS.size(); layer++) {
            if (LAYERS.get(layer).contains(first)) {
                return layer;
            }
        }
        return -1;
    }

    /** Counts the classes it is shown and fails, once, when there are more than {@code max}. */
    private static final class AtMost extends ArchCondition<JavaClass> {

        private final int max;
        private final String packageName;
        private final List<String> seen = new java.util.ArrayList<>();

        AtMost(int max, String packageName) {
            super("be one of at most " + max + " classes of " + packageName);
            this.max = max;
            this.packageName = packageName;
        }

        @Override
        public void init(java.util.Collection<JavaClass> allObjectsToTest) {
            seen.clear();
        }

        @Override
        public void check(JavaClass item, ConditionEvents events) {
            seen.add(item.getSimpleName());
        }

        @Override
        public void finish(ConditionEvents events) {
            if (seen.size() > max) {
                events.add(SimpleConditionEvent.violated(packageName, packageName + " holds " + seen.size()
                        + " classes, more than " + max + ": " + seen.stream().sorted().toList()
                        + "; move a part into a sub-package named for what it owns"));
            }
        }
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
