package io.pgharvest.alert.notify;

import io.pgharvest.alert.AlertTransition;
import io.pgharvest.model.BoundedText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A notification as lines of text for people (Slack, e-mail). Every label and annotation value is
 * data from a database or a user: each is made one inert line ({@link BoundedText}: control
 * characters, ANSI escapes, newlines and bidirectional overrides escaped), so a value can neither
 * start a line of its own, forge a header, nor colour a terminal. The receiver then escapes what
 * its format gives meaning to (Slack's {@code & < >}).
 */
public final class NotificationText {

    private NotificationText() {
    }

    /** {@code value} as one inert line. */
    public static String inert(String value) {
        return BoundedText.of(value == null ? "" : value);
    }

    /** E.g. {@code [FIRING] replication_lag on db1 (critical)}. */
    public static String title(AlertTransition transition) {
        Map<String, String> labels = transition.labels();
        return "[" + transition.state().name().toUpperCase(Locale.ROOT) + "] " + inert(transition.rule()) + " on "
                + inert(labels.getOrDefault("source", "?")) + " (" + inert(labels.getOrDefault("severity", "?")) + ")";
    }

    /** The summary, description, value, runbook, times and every label, one per line. */
    public static List<String> body(AlertTransition transition) {
        var lines = new ArrayList<String>();
        Map<String, String> annotations = transition.annotations();
        addIfPresent(lines, "", annotations.get("summary"));
        addIfPresent(lines, "", annotations.get("description"));
        addIfPresent(lines, "value: ", transition.value());
        addIfPresent(lines, "runbook: ", annotations.get("runbook"));
        lines.add("since: " + transition.startsAt());
        if (transition.state() == AlertTransition.State.RESOLVED) {
            lines.add("resolved: " + transition.endsAt());
        }
        lines.add("labels:");
        new TreeMap<>(transition.labels()).forEach((name, value) -> lines.add("  " + inert(name) + " = " + inert(value)));
        return lines;
    }

    private static void addIfPresent(List<String> lines, String prefix, String value) {
        if (value != null && !value.isEmpty()) {
            lines.add(prefix + inert(value));
        }
    }
}
