package io.pgharvest.pgwatch;

import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricRules;
import io.pgharvest.model.Preset;
import io.pgharvest.model.Source;
import io.pgharvest.store.ConfigChanges;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Takes over what pgharvest can run from a pgwatch import as pgwatch ships and users write it, and
 * turns the rest into notices instead of rejecting the whole import (pgwatch's own
 * {@code metrics.yaml} holds metrics implemented in Go, pooler SQL, and presets naming metrics the
 * file does not define):
 *
 * <ul>
 *   <li>pgwatch's special metrics are mapped to what pgharvest does instead ({@link SpecialMetrics}),
 *       or skipped with the reason;</li>
 *   <li>a metric name with '-' is imported with '_' (names become table names), and references to
 *       it follow;</li>
 *   <li>a {@code sqls} key that is neither a PostgreSQL major version nor a pooler key is dropped;</li>
 *   <li>a metric that still breaks a rule ({@link MetricRules}) is skipped, each problem listed;</li>
 *   <li>preset entries naming a metric that is neither imported nor stored are dropped, and a
 *       preset left empty is skipped; source entries naming a skipped metric are dropped.</li>
 * </ul>
 *
 * Sources themselves are not triaged: their problems (a misspelt preset, a bad connection string)
 * are the operator's to fix, and still reject the import.
 */
final class ImportTriage {

    private final PgwatchImport read;
    private final Set<String> storedMetrics;
    private final List<ImportNotice> notices = new ArrayList<>();
    /** Metric names the import skipped, with the short reason repeated where they are referred to. */
    private final Map<String, String> skipped = new LinkedHashMap<>();
    private final Map<String, String> renamed = new LinkedHashMap<>();
    private final Map<String, MetricDefinition> metrics = new LinkedHashMap<>();

    private ImportTriage(PgwatchImport read, Set<String> storedMetrics) {
        this.read = read;
        this.storedMetrics = storedMetrics;
    }

    /** @param storedMetrics metrics the store already has (built-in or the operator's) */
    static PgwatchImport triage(PgwatchImport read, Set<String> storedMetrics) {
        return new ImportTriage(read, storedMetrics).run();
    }

    private PgwatchImport run() {
        notices.addAll(read.notices());
        read.changes().metrics().forEach(this::takeMetric);
        var presets = new ArrayList<Preset>();
        for (Preset preset : read.changes().presets()) {
            String key = "presets[" + preset.name() + "]";
            Map<String, Integer> entries = selection(preset.metrics(), key + ".metrics", key, true);
            if (entries.isEmpty()) {
                notice(key, key, "skipped: none of its metrics is available in pgharvest");
            } else {
                presets.add(new Preset(preset.name(), preset.description(), entries));
            }
        }
        var sources = new ArrayList<Source>();
        for (Source s : read.changes().sources()) {
            String key = "sources[" + s.name() + "]";
            sources.add(new Source(s.name(), s.connStr(), s.kind(), s.group(), s.enabled(), s.preset(),
                    selection(s.metrics(), key + ".custom_metrics", key, false), s.standbyPreset(),
                    selection(s.standbyMetrics(), key + ".custom_metrics_standby", key, false), s.tags(),
                    s.onlyIfPrimary(), s.includePattern(), s.excludePattern(), s.keepQueryLiterals(),
                    s.keepCommandSettings()));
        }
        var changes = new ConfigChanges(sources, List.copyOf(metrics.values()), presets);
        return new PgwatchImport(changes, notices, read.problems(), read.locations());
    }

    private void takeMetric(MetricDefinition metric) {
        String key = "metrics[" + metric.name() + "]";
        var special = SpecialMetrics.of(metric.name());
        if (special.isPresent()) {
            notice(key, key, "skipped: " + special.get());
            skipped.put(metric.name(), "is special in pgwatch (see metrics[" + metric.name() + "])");
            return;
        }
        String name = metric.name();
        if (name.contains("-")) {
            name = name.replace('-', '_');
            renamed.put(metric.name(), name);
            notice(key, key, "imported as '" + name + "': metric names become table names, which take no '-'");
        }
        var sqls = new TreeMap<Integer, String>();
        metric.sqls().forEach((version, sql) -> {
            if (version != null && MetricRules.isSqlKey(version)) {
                sqls.put(version, sql);
            } else {
                notice(key, key + ".sqls." + version, "dropped: " + MetricRules.notAMajorVersion());
            }
        });
        var taken = new MetricDefinition(name, metric.description(), sqls, metric.gauges(), metric.instanceLevel(),
                metric.nodeStatus(), metric.storageName() == null ? null : metric.storageName().replace('-', '_'),
                metric.initSql(), metric.statementTimeoutSeconds(), instanceSqlsOf(metric, sqls.keySet()));
        List<FieldProblem> problems = MetricRules.check(taken);
        if (problems.isEmpty()) {
            metrics.put(name, taken);
            return;
        }
        problems.forEach(p -> notice(key, PgwatchImportReader.pgwatchField(key + "." + p.field()), p.message()));
        notice(key, key, "skipped: pgharvest cannot run it as written (see the notices above)");
        skipped.put(metric.name(), "is skipped by this import (see metrics[" + metric.name() + "])");
    }

    /**
     * The entries of a preset or source selection whose metric will exist, renamed where needed.
     * A source's entry naming a metric nobody defines stays, so validation reports the typo.
     */
    private Map<String, Integer> selection(Map<String, Integer> entries, String field, String key,
            boolean dropUndefined) {
        var kept = new LinkedHashMap<String, Integer>();
        entries.forEach((metric, interval) -> {
            String name = renamed.getOrDefault(metric, metric);
            List<String> instead = SpecialMetrics.replacements(metric).stream()
                    .filter(r -> metrics.containsKey(r) || storedMetrics.contains(r)).toList();
            if (!instead.isEmpty()) {
                instead.forEach(r -> kept.putIfAbsent(r, interval));
                notice(key, field + "." + metric, "replaced by " + String.join(", ", instead)
                        + ": pgharvest writes pgwatch's *_changes tables from them");
            } else if (metrics.containsKey(name) || storedMetrics.contains(name)) {
                kept.put(name, interval);
            } else if (skipped.containsKey(metric)) {
                notice(key, field + "." + metric, "dropped: metric " + metric + " " + skipped.get(metric));
            } else if (dropUndefined) {
                notice(key, field + "." + metric, "dropped: " + SpecialMetrics.collectedWithoutSelection(metric)
                        .orElse("no metric " + metric + " is defined"));
            } else {
                kept.put(name, interval);
            }
        });
        return kept;
    }

    private void notice(String itemKey, String field, String message) {
        notices.add(new ImportNotice(read.locationOf(itemKey), field, message));
    }

    /**
     * The instance-wide variants (written in the file or derived by the import) of the versions
     * kept: without them the metric would not fan out.
     */
    private static Map<Integer, String> instanceSqlsOf(MetricDefinition metric, Set<Integer> kept) {
        var variants = new TreeMap<Integer, String>();
        metric.instanceSqls().forEach((version, sql) -> {
            if (kept.contains(version)) {
                variants.put(version, sql);
            }
        });
        return variants;
    }
}
