package io.pgharvest.insights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.config.DataDirectory;
import io.pgharvest.config.HarvestProperties;
import io.pgharvest.nativemetric.GenericPlans;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import io.pgharvest.nativemetric.SourceShelf;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Without a planning role query_plans is off and says so; its settings are checked at start-up. */
@Tag("fast")
class PlanningRoleSettingsTest {

    @TempDir
    Path dataDir;

    @Test
    void withoutAPlanningRoleNothingIsPlannedAndTheStatusSaysPlansOff() {
        var opened = new AtomicInteger();
        GenericPlans plans = login -> {
            opened.incrementAndGet();
            throw new AssertionError("no session may be opened");
        };
        var target = new NativeTarget("s", "db", 16, ":0", true, null, Duration.ofSeconds(60), Instant.now(), null,
                plans, new SourceShelf());
        var collector = new QueryPlans(defaults("", ""), new DataDirectory(new HarvestProperties(dataDir,
                new HarvestProperties.Api(null), Duration.ofSeconds(5)))).newCollector();

        assertThatThrownBy(() -> collector.collect(target)).isInstanceOf(NativeMetric.Unavailable.class)
                .hasMessageContaining("plans off: no planning role");
        assertThat(opened).hasValue(0);
    }

    @Test
    void thePlanningLoginComesFromTheSettingsAndItsPasswordIsNeverShown() {
        var properties = defaults("pgharvest_planner", "planner-secret");
        assertThat(properties.planningLogin()).hasValueSatisfying(login -> {
            assertThat(login.user()).isEqualTo("pgharvest_planner");
            assertThat(login.password()).isEqualTo("planner-secret");
            assertThat(login.toString()).doesNotContain("planner-secret");
        });
        assertThat(properties.toString()).doesNotContain("planner-secret");
    }

    @Test
    void aPasswordWithoutAUserAndPlanAsSuperuserAreStartUpErrors() {
        assertThatThrownBy(() -> defaults("", "pw")).hasMessageContaining("planning-password is set without");
        assertThatThrownBy(() -> new QueryInsightsProperties(50, false, 10, Duration.ofDays(1), Duration.ofSeconds(10),
                Duration.ofSeconds(5), Duration.ofSeconds(5), true, "p", "", 2, Duration.ofSeconds(10))).hasMessageContaining(
                        "plan-as-superuser is no longer supported");
    }

    private static QueryInsightsProperties defaults(String user, String password) {
        return new QueryInsightsProperties(50, false, 10, Duration.ofDays(1), Duration.ofSeconds(10),
                Duration.ofSeconds(5), Duration.ofSeconds(5), false, user, password, 2, Duration.ofSeconds(10));
    }
}
