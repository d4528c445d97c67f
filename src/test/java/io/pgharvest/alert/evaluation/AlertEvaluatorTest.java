package io.pgharvest.alert.evaluation;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.alert.AlertNotifications;
import io.pgharvest.alert.AlertTransition;
import io.pgharvest.alert.rule.AlertRuleBody;
import io.pgharvest.alert.rule.MetricLookup;
import io.pgharvest.alert.rule.RuleCompiler;
import io.pgharvest.alert.store.AlertRules;
import io.pgharvest.alert.store.AlertState;
import io.pgharvest.alert.store.FileAlertStorage;
import io.pgharvest.model.Measurement;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state machine over the file storage, as a restart sees it: pending until {@code for}, one
 * firing, a restart that finds the firing alert and sends nothing again, one resolution; a
 * source that goes down fires its unreachable alert while its other alerts stay as they are;
 * {@code keepFiringFor} holds an alert through a short gap.
 */
@Tag("fast")
class AlertEvaluatorTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final MetricLookup ANY = new MetricLookup() {
        @Override
        public boolean exists(String metric) {
            return true;
        }

        @Override
        public Optional<Set<String>> columns(String metric) {
            return Optional.empty();
        }
    };

    @TempDir
    Path dir;

    private Instant now = T0;
    private final List<AlertTransition> sent = new CopyOnWriteArrayList<>();

    @Test
    void aFiringAlertSurvivesARestartWithoutASecondFiringAndResolvesOnce() {
        AlertEvaluator first = evaluator(true);
        first.evaluate(List.of(backends("db1", 10)));
        assertThat(sent).isEmpty();
        assertThat(first.current()).singleElement().extracting(AlertState::status).isEqualTo(AlertState.Status.PENDING);
        now = T0.plusSeconds(2);
        first.evaluate(List.of(backends("db1", 12)));
        assertThat(sent).singleElement().satisfies(t -> {
            assertThat(t.state()).isEqualTo(AlertTransition.State.FIRING);
            assertThat(t.labels()).containsEntry("alertname", "LongTx").containsEntry("source", "db1")
                    .containsEntry("severity", "warning");
            assertThat(t.annotations()).containsEntry("summary", "open 12 s");
            assertThat(t.startsAt()).isEqualTo(T0.plusSeconds(2));
        });

        AlertEvaluator restarted = evaluator(false); // same files, a new process
        now = T0.plusSeconds(3);
        restarted.evaluate(List.of(backends("db1", 13)));
        assertThat(sent).hasSize(1);
        now = T0.plusSeconds(5);
        restarted.evaluate(List.of(backends("db1", 0)));
        assertThat(sent).as("keepFiringFor (3s) since the last true at 3s").hasSize(1);
        now = T0.plusSeconds(7);
        restarted.evaluate(List.of(backends("db1", 0)));
        assertThat(sent).extracting(AlertTransition::state)
                .containsExactly(AlertTransition.State.FIRING, AlertTransition.State.RESOLVED);
        assertThat(sent.get(1).startsAt()).isEqualTo(sent.get(0).startsAt());
        assertThat(sent.get(1).endsAt()).isEqualTo(T0.plusSeconds(7));
        restarted.evaluate(List.of(backends("db1", 0)));
        assertThat(sent).hasSize(2);
        assertThat(restarted.current()).isEmpty();
    }

    @Test
    void aSourceThatGoesDownFiresOnceAndItsOtherAlertsStayAsTheyAre() {
        AlertEvaluator evaluator = evaluator(true);
        evaluator.evaluate(List.of(backends("db1", 10), up("db1", 1)));
        now = T0.plusSeconds(2);
        evaluator.evaluate(List.of(backends("db1", 10), up("db1", 1)));
        assertThat(sent).extracting(AlertTransition::rule).containsExactly("LongTx");
        for (int i = 0; i < 5; i++) { // down: only instance_up arrives
            now = now.plusSeconds(1);
            evaluator.evaluate(List.of(up("db1", 0)));
            evaluator.round();
        }
        assertThat(sent).extracting(t -> t.rule() + " " + t.state())
                .containsExactly("LongTx FIRING", "Down FIRING");
        assertThat(evaluator.current()).extracting(AlertState::rule).containsExactlyInAnyOrder("LongTx", "Down");
        now = now.plusSeconds(1);
        evaluator.evaluate(List.of(up("db1", 1), backends("db1", 0)));
        assertThat(sent).extracting(t -> t.rule() + " " + t.state())
                .containsExactly("LongTx FIRING", "Down FIRING", "Down RESOLVED", "LongTx RESOLVED");
    }

    @Test
    void keepFiringForHoldsAnAlertThroughAShortGapAndRoundsReSendWhatFires() {
        AlertEvaluator evaluator = evaluator(true);
        evaluator.evaluate(List.of(backends("db2", 10)));
        now = T0.plusSeconds(1);
        evaluator.evaluate(List.of(backends("db2", 10)));
        now = T0.plusSeconds(2);
        evaluator.evaluate(List.of(backends("db2", 0))); // within keepFiringFor (3s) of the last true
        assertThat(sent).extracting(AlertTransition::state).containsExactly(AlertTransition.State.FIRING);
        evaluator.round();
        assertThat(resent).singleElement().satisfies(t -> assertThat(t.endsAt()).isAfter(now));
        now = T0.plusSeconds(5);
        evaluator.evaluate(List.of(backends("db2", 0)));
        assertThat(sent).extracting(AlertTransition::state)
                .containsExactly(AlertTransition.State.FIRING, AlertTransition.State.RESOLVED);
    }

    private final List<AlertTransition> resent = new ArrayList<>();
    private volatile boolean heldHere = true;

    @Test
    void aSourceHandedToAnotherInstanceIsForgottenSilentlyAndTakenBackFiringWithoutANewFiring() {
        AlertEvaluator evaluator = evaluator(true);
        evaluator.evaluate(List.of(backends("db3", 10)));
        now = T0.plusSeconds(2);
        evaluator.evaluate(List.of(backends("db3", 10)));
        assertThat(sent).hasSize(1);
        heldHere = false; // the lease moved: another instance evaluates db3 from its stored state
        evaluator.round();
        assertThat(evaluator.current()).isEmpty();
        assertThat(sent).hasSize(1);
        heldHere = true; // and back: the state is read from the storage again
        AlertEvaluator takeover = evaluator(false);
        now = T0.plusSeconds(3);
        takeover.evaluate(List.of(backends("db3", 11)));
        assertThat(sent).hasSize(1);
        assertThat(takeover.current()).singleElement().satisfies(state -> {
            assertThat(state.status()).isEqualTo(AlertState.Status.FIRING);
            assertThat(state.firingSince()).isEqualTo(T0.plusSeconds(2));
        });
        now = T0.plusSeconds(9);
        takeover.evaluate(List.of(backends("db3", 0)));
        assertThat(sent).extracting(AlertTransition::state)
                .containsExactly(AlertTransition.State.FIRING, AlertTransition.State.RESOLVED);
        assertThat(sent.get(1).startsAt()).isEqualTo(T0.plusSeconds(2));
    }

    /**
     * Rows without any column the condition names are passed over without evaluating (pgwatch's
     * metric of the same name has other columns); a row with one of them is evaluated as CEL says,
     * so an alternative on a NULL column still fires on the other.
     */
    @Test
    void aRowWithoutTheConditionsColumnsDoesNotMatchAndAnAlternativeOnANullColumnStillHolds() {
        AlertEvaluator evaluator = evaluator(true);
        var pgwatchColumns = new java.util.HashMap<String, Object>(Map.of("active", 40L));
        pgwatchColumns.put("waiting", null);
        evaluator.evaluate(List.of(new Measurement("db1", "locks", T0, List.of(
                new Measurement.Row(pgwatchColumns, Map.of())), Map.of())));
        assertThat(evaluator.current()).as("none of blocked, waiting_s").isEmpty();

        var oneNull = new java.util.HashMap<String, Object>(Map.of("blocked", 9L));
        oneNull.put("waiting_s", null);
        evaluator.evaluate(List.of(new Measurement("db1", "locks", T0, List.of(
                new Measurement.Row(oneNull, Map.of())), Map.of())));
        assertThat(sent).singleElement().satisfies(t -> assertThat(t.labels()).containsEntry("alertname", "Blocked"));
    }

    private AlertEvaluator evaluator(boolean createRules) {
        var storage = new FileAlertStorage(dir);
        var rules = new AlertRules(storage, new RuleCompiler(10_000), ANY, ANY, Map.of());
        if (createRules) {
            rules.create(new AlertRuleBody("LongTx", "backends", "longest_tx_seconds > 5", "1s", "3s", "warning", null,
                    "open {{ value }} s", null, null, null, null, null, null));
            rules.create(new AlertRuleBody("Down", "instance_up", "instance_up == 0", "0s", null, "critical", null,
                    "{{ source }} down", null, null, null, null, null, null));
            rules.create(new AlertRuleBody("Blocked", "locks", "blocked > 5 || waiting_s > 60", "0s", null, "warning",
                    null, "{{ value }} blocked", null, null, null, null, null, null));
        }
        AlertNotifications recorder = new AlertNotifications() {
            @Override
            public void transition(AlertTransition transition) {
                sent.add(transition);
            }

            @Override
            public void stillFiring(Collection<AlertTransition> firing) {
                resent.clear();
                resent.addAll(firing);
            }
        };
        Clock clock = new Clock() {
            @Override
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now;
            }
        };
        return new AlertEvaluator(rules, name -> null, name -> heldHere, new AlertBook(storage), () -> List.of(recorder),
                clock, Duration.ofSeconds(10));
    }

    private static Measurement backends(String source, long longestTx) {
        return new Measurement(source, "backends", T0, List.of(new Measurement.Row(
                Map.of("longest_tx_seconds", longestTx, "total", 3L), Map.of())), Map.of());
    }

    private static Measurement up(String source, long up) {
        return new Measurement(source, "instance_up", T0, List.of(new Measurement.Row(Map.of("instance_up", up),
                Map.of())), Map.of());
    }
}
