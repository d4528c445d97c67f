package io.pgharvest.alert;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** A transition reads back from its JSON (the history and the outbox keep it so) with its text untouched. */
@Tag("fast")
class AlertTransitionTest {

    @Test
    void aTransitionReadsBackFromJsonAsItWasWithMarkupKeptAsText() {
        var t = new AlertTransition("fp", AlertTransition.State.RESOLVED,
                Map.of("alertname", "LongTx", "source", "<script>db\u001b[31m\n"), Map.of("summary", "a & b"),
                Instant.parse("2026-01-01T00:00:00Z"), Instant.parse("2026-01-01T00:05:00Z"), null);
        JsonMapper json = JsonMapper.builder().build();
        AlertTransition back = json.readValue(json.writeValueAsString(t), AlertTransition.class);
        assertThat(back).isEqualTo(t);
        assertThat(back.rule()).isEqualTo("LongTx");
        assertThat(back.value()).isEmpty();
    }
}
