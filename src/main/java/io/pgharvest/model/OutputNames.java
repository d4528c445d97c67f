package io.pgharvest.model;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The one rule for the names a measurement's columns and tags take in the sinks, and the check
 * that a result can be written under it. The Prometheus scrape and remote-write sinks can carry
 * only {@code [a-zA-Z0-9_]} ({@link #sanitize}), give a row's tag that would pose as one of
 * pgharvest's own labels a {@code tag_} prefix ({@link #labelName}) and name a counter's series
 * {@code <family>_total} ({@link #family}, {@link #series}). So {@code a b}, {@code a-b} and
 * {@code a_b} (and any two non-ASCII names of one length), the tags {@code source} and
 * {@code tag_source}, or the counters {@code x} and {@code x_total} would become one series or
 * one label and silently keep one value of several; two columns of exactly one name
 * ({@code select 1 as a, 2 as a}) would do the same in every sink. Such a result is refused
 * before any sink sees it ({@link #repeated}, {@link #clash}): its metric fails with an error
 * naming both columns, the same in every sink, and the sinks that could have told the names apart
 * (JSON file, PostgreSQL) do not hold rows the others lack. docs/sinks.md "Names".
 */
public final class OutputNames {

    /** Every family name starts with it. */
    public static final String PREFIX = "pgharvest_";
    /** The label of the collector's fleet instance id, on every series in a fleet. */
    public static final String INSTANCE_LABEL = "pgharvest_instance";
    /** The label of the source's name, on every series. */
    public static final String SOURCE_LABEL = "source";
    private static final String TOTAL = "_total";
    private static final String RENAMED_TAG = "tag_";
    /** What every refusal ends with: the same words whichever rule the names broke. */
    private static final String REFUSED = ": rename one of them (a result whose names collide is refused in every sink)";

    private OutputNames() {
    }

    /** Anything outside {@code [a-zA-Z0-9_]} becomes {@code _}; a leading digit gets a {@code _} in front. */
    public static String sanitize(String name) {
        if (isClean(name)) {
            return name; // the usual case: no copy per column and result
        }
        if (name.isEmpty()) {
            return "_";
        }
        var out = new StringBuilder(name.length() + 1);
        if (Character.isDigit(name.charAt(0))) { // any script's digit, as always: names stay as they were
            out.append('_');
        }
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            out.append(isLegal(ch) ? ch : '_');
        }
        return out.toString();
    }

    /**
     * The label a tag (the operator's or a row's {@code tag_} column, named without the prefix)
     * takes in the Prometheus sinks: its {@linkplain #sanitize sanitized} name, with a
     * {@code tag_} prefix when it would otherwise be {@value #SOURCE_LABEL} or {@value #INSTANCE_LABEL}
     * or start with the prefix {@code __} Prometheus reserves for itself.
     */
    public static String labelName(String tag) {
        String name = sanitize(tag);
        return name.equals(SOURCE_LABEL) || name.equals(INSTANCE_LABEL) || name.startsWith("__")
                ? RENAMED_TAG + name : name;
    }

    /**
     * The family of a value column in the Prometheus sinks: {@code pgharvest_<metric>_<column>},
     * {@code pgharvest_<metric>} when the column is named like the metric, sanitized; a counter's
     * family drops a {@code _total} suffix (its series adds it back, {@link #series}).
     */
    public static String family(String metric, String column, boolean counter) {
        String base = column.equals(metric) ? metric : metric + "_" + column;
        String name = PREFIX + sanitize(base);
        return counter && name.endsWith(TOTAL) ? name.substring(0, name.length() - TOTAL.length()) : name;
    }

    /** The series name of a sample: the family, plus {@code _total} for a counter. */
    public static String series(String family, boolean counter) {
        return counter ? family + TOTAL : family;
    }

    /**
     * Why a result whose columns carry {@code labels} (as the server named them, {@code tag_}
     * prefix, {@code epoch_ns} and all, in order) cannot be written: two columns of exactly one
     * name, which any map of a row keeps as one value. Names the first such pair by position
     * (1-based, as in SQL's {@code order by 1}).
     */
    public static Optional<String> repeated(List<String> labels) {
        for (int i = 1; i < labels.size(); i++) {
            for (int j = 0; j < i; j++) {
                if (labels.get(i).equals(labels.get(j))) {
                    return Optional.of("columns " + (j + 1) + " and " + (i + 1) + " are both named \"" + labels.get(i)
                            + "\"" + REFUSED);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Why {@code rows} of {@code metric} (its storage name) cannot be written under one rule of
     * names: two different value columns whose families or series meet (sanitized, with a
     * counter's {@code _total}), or two different tag columns that take one label (sanitized and
     * renamed, {@link #labelName}). Checks each distinct set of names once (the rows of a result
     * share theirs), so a result costs one comparison per row.
     *
     * @param counter whether a column is a counter in the Prometheus sinks (the metric definition
     *     does not name it a gauge)
     */
    public static Optional<String> clash(String metric, Predicate<String> counter, List<Measurement.Row> rows) {
        Object lastValues = null;
        Object lastTags = null;
        for (Measurement.Row row : rows) {
            Object values = row.values() instanceof RowValues shared ? shared.columns() : row.values().keySet();
            // Rows of one result share their names: one look per result, not per row (rows built
            // as maps have a key set of their own each, equal to the one before).
            if (values != lastValues && !values.equals(lastValues)) {
                Optional<String> clash = valueClash(metric, counter, row.values());
                if (clash.isPresent()) {
                    return clash;
                }
                lastValues = values;
            }
            Map<String, String> tags = row.tags();
            if (!(tags instanceof RowTags rowTags && lastTags instanceof RowTags previous
                    && rowTags.sharesNamesWith(previous))) {
                Optional<String> clash = tagClash(tags);
                if (clash.isPresent()) {
                    return clash;
                }
                lastTags = tags;
            }
        }
        return Optional.empty();
    }

    private static Optional<String> valueClash(String metric, Predicate<String> counter, Map<String, ?> values) {
        if (values.size() < 2) {
            return Optional.empty();
        }
        String[] names = values.keySet().toArray(String[]::new);
        String[] families = new String[names.length];
        String[] series = new String[names.length];
        for (int i = 0; i < names.length; i++) {
            if (!isSeries(names[i])) {
                continue;
            }
            boolean isCounter = counter.test(names[i]);
            families[i] = family(metric, names[i], isCounter);
            series[i] = series(families[i], isCounter);
            for (int j = 0; j < i; j++) {
                if (families[j] == null || names[i].equals(names[j])) {
                    continue;
                }
                String shared = families[i].equals(families[j]) ? "family \"" + families[i] + "\""
                        : series[i].equals(series[j]) ? "series \"" + series[i] + "\""
                        : series[i].equals(families[j]) || families[i].equals(series[j]) ? "name \"" + series[i] + "\""
                        : null;
                if (shared != null) {
                    return Optional.of("columns \"" + names[j] + "\" and \"" + names[i] + "\" both become the " + shared
                            + " in the Prometheus sinks" + REFUSED);
                }
            }
        }
        return Optional.empty();
    }

    /** Whether a value column becomes a series (the time column and {@code tag_} names never do). */
    private static boolean isSeries(String column) {
        return !column.equals("epoch_ns") && !column.startsWith(RENAMED_TAG);
    }

    private static Optional<String> tagClash(Map<String, String> tags) {
        if (tags.size() < 2) {
            return Optional.empty();
        }
        String[] names = tags.keySet().toArray(String[]::new);
        String[] labels = new String[names.length];
        for (int i = 0; i < names.length; i++) {
            labels[i] = labelName(names[i]);
            for (int j = 0; j < i; j++) {
                if (labels[i].equals(labels[j]) && !names[i].equals(names[j])) {
                    return Optional.of("tag columns \"" + RENAMED_TAG + names[j] + "\" and \"" + RENAMED_TAG + names[i]
                            + "\" both become the label \"" + labels[i] + "\" in the Prometheus sinks" + REFUSED);
                }
            }
        }
        return Optional.empty();
    }

    private static boolean isClean(String name) {
        if (name.isEmpty() || isDigit(name.charAt(0))) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            if (!isLegal(name.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isDigit(char ch) {
        return ch >= '0' && ch <= '9';
    }

    private static boolean isLegal(char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || isDigit(ch) || ch == '_';
    }
}
