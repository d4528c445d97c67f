package io.pgharvest.alert.notify.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.alert.notify.ReceiverDefinition;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Receiver definitions bound to the registry's plugins: what does not fit is a problem naming the field. */
@Tag("fast")
class ReceiverBinderTest {

    @Test
    void unknownTypesOptionsAndBadValuesAreProblemsNamingTheField() {
        var binder = new ReceiverBinder(NotifyHarness.REGISTRY);
        assertThatThrownBy(() -> binder.bind(new ReceiverDefinition("x", "pagerduty", Map.of(), null)))
                .isInstanceOfSatisfying(NotifyInputException.class, e -> assertThat(e.problems())
                        .extracting(p -> p.field()).containsExactly("type"));
        assertThatThrownBy(() -> binder.bind(new ReceiverDefinition("x", "webhook",
                Map.of("url", "http://h/", "colour", "red"), null)))
                .isInstanceOfSatisfying(NotifyInputException.class, e -> assertThat(e.problems())
                        .extracting(p -> p.field()).containsExactly("colour"));
        assertThatThrownBy(() -> binder.bind(new ReceiverDefinition("x", "email", Map.of("host", "smtp",
                "port", 70000, "from", "not an address", "to", List.of("a@example.org", "also not")), null)))
                .isInstanceOfSatisfying(NotifyInputException.class, e -> assertThat(e.problems())
                        .extracting(p -> p.field()).containsExactlyInAnyOrder("port", "from", "to[1]"));
        assertThatThrownBy(() -> binder.bind(new ReceiverDefinition("x", "alertmanager",
                Map.of("urls", List.of("http://am:9093", "ftp://secret-token@am2")), null)))
                .isInstanceOfSatisfying(NotifyInputException.class, e -> {
                    assertThat(e.problems()).extracting(p -> p.field()).containsExactly("urls[1]");
                    assertThat(e.getMessage()).doesNotContain("secret-token");
                });
    }
}
