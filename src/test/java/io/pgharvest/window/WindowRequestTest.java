package io.pgharvest.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pgharvest.api.InvalidParameterException;
import io.pgharvest.model.FieldProblem;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The range parameters of the window endpoints, parsed once: from, to, span on one side, step. */
@Tag("fast")
class WindowRequestTest {

    private static final Instant NOW = Instant.parse("2026-12-02T06:00:00Z");
    private static final Duration HOUR = Duration.ofHours(1);

    @Test
    void aRangeGetsTheSmallestRoundStepWithinSixHundredPoints() {
        assertThat(range("2026-12-02T00:00:00Z", null, null, null).step()).isEqualTo(Duration.ofMinutes(1));
        assertThat(range(null, "2026-12-02T06:00:00Z", "7d", null)).isEqualTo(new TimeRange(
                Instant.parse("2026-11-25T06:00:00Z"), NOW, Duration.ofMinutes(30)));
        assertThat(range("2026-11-02T06:00:00Z", null, null, null).step()).isEqualTo(Duration.ofHours(2));
        assertThat(range("2026-12-01T06:00:00Z", null, "6h", "10m")).isEqualTo(new TimeRange(
                Instant.parse("2026-12-01T06:00:00Z"), Instant.parse("2026-12-01T12:00:00Z"), Duration.ofMinutes(10)));
        // An offset's '+' that arrived unencoded reads as a space.
        assertThat(range("2026-12-02T06:00:00 01:00", null, null, null).from()).isEqualTo(Instant.parse("2026-12-02T05:00:00Z"));
    }

    @Test
    void everyBadParameterIsNamed() {
        assertThat(problems("2026-12-02T05:00:00Z", "2026-12-02T04:00:00Z", null, null)).containsExactly("to");
        assertThat(problems("3am", "later", null, null)).containsExactlyInAnyOrder("from", "to");
        assertThat(problems("2026-12-02T07:00:00Z", null, null, null)).containsExactly("from");
        assertThat(problems("2024-01-01T00:00:00Z", null, null, null)).containsExactly("from");
        assertThat(problems("2026-12-01T00:00:00Z", null, null, "1s")).containsExactly("step");
        assertThat(problems("2026-12-02T05:00:00Z", null, null, "2h")).containsExactly("step");
        assertThat(problems("2026-12-02T05:00:00Z", "2026-12-02T06:00:00Z", "1h", null)).containsExactly("span");
        assertThat(problems(null, null, "2h", null)).containsExactly("span");
        assertThat(problems(null, null, null, "1m")).containsExactly("step");
    }

    private static TimeRange range(String from, String to, String span, String step) {
        return WindowRequest.parse(new WindowRequest.RangeParameters(span, from, to, step), null, null, HOUR, NOW,
                problems -> { }).range();
    }

    private static List<String> problems(String from, String to, String span, String step) {
        var thrown = catchThrowableOfType(InvalidParameterException.class, () -> WindowRequest.parse(
                new WindowRequest.RangeParameters(span, from, to, step), null, null, HOUR, NOW, problems -> { }));
        assertThat(thrown).as("a problem").isNotNull();
        return thrown.problems().stream().map(FieldProblem::field).toList();
    }
}
