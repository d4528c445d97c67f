package io.pgharvest.alert.rule;

import io.pgharvest.model.Source;
import java.util.List;
import java.util.Map;

/**
 * Which sources a rule applies to: every criterion given must hold (a source of that group, of
 * that kind, carrying every one of those tags, one of those names); none given means all sources.
 *
 * @param group the source's group, or null for any
 * @param kind the source's kind ({@code postgres}, {@code pgbouncer}, ...), or null for any
 * @param tags tags the source must carry with these values; empty for any
 * @param names the sources by name; empty for any
 */
public record SourceSelector(String group, String kind, Map<String, String> tags, List<String> names) {

    public static final SourceSelector ALL = new SourceSelector(null, null, Map.of(), List.of());

    public SourceSelector {
        group = blankToNull(group);
        kind = blankToNull(kind);
        tags = tags == null ? Map.of() : Map.copyOf(tags);
        names = names == null ? List.of() : List.copyOf(names);
    }

    public boolean matches(Source source) {
        return (group == null || group.equals(source.group()))
                && (kind == null || kind.equals(source.kind().label()))
                && tags.entrySet().stream().allMatch(tag -> tag.getValue().equals(source.tags().get(tag.getKey())))
                && (names.isEmpty() || names.contains(source.name()));
    }

    private static String blankToNull(String text) {
        return text == null || text.isBlank() ? null : text;
    }
}
