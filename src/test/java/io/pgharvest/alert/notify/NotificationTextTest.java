package io.pgharvest.alert.notify;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.alert.AlertTransition;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Notifications as text for people: every value from a database or a user one inert line, so that
 * none can start a line of its own, forge a header, colour a terminal or reorder text.
 */
@Tag("fast")
class NotificationTextTest {

    private static final Instant START = Instant.parse("2026-01-02T03:04:05Z");

    private static AlertTransition transition(AlertTransition.State state, String source, Map<String, String> annotations) {
        var labels = new LinkedHashMap<String, String>();
        labels.put("severity", "critical");
        labels.put("source", source);
        labels.put("alertname", "long_transaction");
        return new AlertTransition("fp", state, labels, annotations, START, START.plusSeconds(60), "7200");
    }

    @Test
    void controlCharactersNewlinesAndBidiOverridesBecomeVisibleEscapes() {
        assertThat(NotificationText.inert("a\nSubject: b")).isEqualTo("a\\nSubject: b");
        assertThat(NotificationText.inert("\u001b[31mred\r\t")).isEqualTo("\\u001b[31mred\\r\\t");
        assertThat(NotificationText.inert("abc\u202edef\u2028")).isEqualTo("abc\\u202edef\\u2028");
        assertThat(NotificationText.inert("plain <b>&</b> é")).isEqualTo("plain <b>&</b> é");
        assertThat(NotificationText.inert(null)).isEmpty();
    }

    @Test
    void theTitleNamesStateRuleSourceAndSeverityOnOneLine() {
        assertThat(NotificationText.title(transition(AlertTransition.State.FIRING, "db1\nSubject: forged", Map.of())))
                .isEqualTo("[FIRING] long_transaction on db1\\nSubject: forged (critical)");
        var unlabelled = new AlertTransition("fp", AlertTransition.State.RESOLVED, Map.of("alertname", "x"), Map.of(),
                START, START, null);
        assertThat(NotificationText.title(unlabelled)).isEqualTo("[RESOLVED] x on ? (?)");
    }

    @Test
    void theBodyHasOneInertLinePerValueAndTheLabelsSorted() {
        var annotations = Map.of("summary", "open for 2h\non db1", "runbook", "https://runbooks.example.org/long");
        List<String> firing = NotificationText.body(transition(AlertTransition.State.FIRING, "db1\u001b[0m", annotations));
        assertThat(firing).containsExactly("open for 2h\\non db1", "value: 7200",
                "runbook: https://runbooks.example.org/long", "since: 2026-01-02T03:04:05Z", "labels:",
                "  alertname = long_transaction", "  severity = critical", "  source = db1\\u001b[0m");

        List<String> resolved = NotificationText.body(transition(AlertTransition.State.RESOLVED, "db1", Map.of()));
        assertThat(resolved).containsSubsequence("value: 7200", "since: 2026-01-02T03:04:05Z",
                "resolved: 2026-01-02T03:05:05Z", "labels:");
        assertThat(String.join("\n", firing).lines()).noneMatch(line -> line.startsWith("Subject:"));
    }
}
