package io.pgharvest.model;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one rule for the names a measurement's columns and tags take in the sinks. The Prometheus
 * scrape and remote-write sinks can carry only {@code [a-zA-Z0-9_]} ({@link #sanitize}), so
 * {@code a b}, {@code a-b} and {@code a_b} (and any two non-ASCII names of one length) would become
 * one series or one label and silently keep one value of several. Such a result is refused
 * before any sink sees it ({@link #clash}): its metric fails with an error naming both columns,
 * the same in every sink, and the sinks that could have told the names apart (JSON file,
 * PostgreSQL) do not hold rows the others lack. docs/sinks.md "Names".
 */
public final class OutputNames {

    private OutputNames() {
    }

    /** Anything outside {@code [a-zA-Z0-9_]} becomes {@code _}; a leading digit gets a {@code _} in front. */
    public static String sanitize(String name) {
        if (name.isEmpty()) {
            return "_";
        }
        var out = new StringBuilder(name.length() + 1);
        if (Character.isDigit(name.charAt(0))) {
            out.append('_');
        }
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            boolean legal = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
            out.append(legal ? ch : '_');
        }
        return out.toString();
    }

    /**
     * Why {@code rows} cannot be written under one rule of names: two different value columns, or
     * two different tag columns, that sanitize to the same name. Checks each distinct set of names
     * once (the rows of a result share theirs), so a result costs one comparison per row.
     */
    public static Optional<String> clash(List<Measurement.Row> rows) {
        Object lastValues = null;
        Object lastTags = null;
        for (Measurement.Row row : rows) {
            Object values = row.values() instanceof RowValues shared ? shared.columns() : row.values().keySet();
            if (values != lastValues) {
                Optional<String> clash = clash(row.values(), "columns ", "");
                if (clash.isPresent()) {
                    return clash;
                }
                lastValues = values;
            }
            Map<String, String> tags = row.tags();
            if (!(tags instanceof RowTags rowTags && lastTags instanceof RowTags previous
                    && rowTags.sharesNamesWith(previous))) {
                Optional<String> clash = clash(tags, "tag columns ", "tag_");
                if (clash.isPresent()) {
                    return clash;
                }
                lastTags = tags;
            }
        }
        return Optional.empty();
    }

    private static Optional<String> clash(Map<String, ?> named, String what, String prefix) {
        if (named.size() < 2) {
            return Optional.empty();
        }
        String[] names = named.keySet().toArray(String[]::new);
        String[] clean = new String[names.length];
        for (int i = 0; i < names.length; i++) {
            clean[i] = sanitize(names[i]);
            for (int j = 0; j < i; j++) {
                if (clean[i].equals(clean[j]) && !names[i].equals(names[j])) {
                    return Optional.of(what + "\"" + prefix + names[j] + "\" and \"" + prefix + names[i]
                            + "\" both become \"" + clean[i] + "\" in the Prometheus sinks' names: rename one of them"
                            + " (a result whose names collide is refused in every sink)");
                }
            }
        }
        return Optional.empty();
    }
}
