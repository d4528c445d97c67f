package io.pgharvest.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.history.postgres.PostgresHistoryPlugin;
import io.pgharvest.history.postgres.PostgresHistorySettings;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.postgres.PostgresSink;
import io.pgharvest.sink.postgres.PostgresSinkProperties;
import io.pgharvest.sink.postgres.SinkPoolThreads;
import io.pgharvest.testsupport.TestPostgres;
import io.pgharvest.window.Plan;
import io.pgharvest.window.Series;
import io.pgharvest.window.StoredHistory;
import io.pgharvest.window.TimeRange;
import io.pgharvest.window.WaitShare;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The readers behind the window's ranges, on a real storage database: a store that is slow for one
 * metric (its table locked) or down answers with the store's name and what failed, within the
 * deadline, and the rest of the answer is there; a statement's plans come back as runs of a hash
 * with the time each began, its waits as shares of the samples.
 */
class HistoryReadersTest {

    private static final TestPostgres PG = TestPostgres.shared();
    private static final String DB = "history_readers_" + ProcessHandle.current().pid();
    private static final Instant END = Instant.now().truncatedTo(ChronoUnit.MINUTES);
    private static final Instant START = END.minus(Duration.ofHours(2));

    private static HistoryReaders readers;

    @BeforeAll
    static void twoHoursOfOneSource() throws Exception {
        PG.createDatabase(DB);
        try (var threads = new SinkPoolThreads()) {
            PostgresSink sink = PostgresSink.create("pgharvest.sinks[0]", "readers-test",
                    PostgresSinkProperties.of(PG.connStr(DB)), threads, Clock.systemUTC());
            try {
                var fleet = new FleetHistory(List.of("one"));
                var batch = new ArrayList<Measurement>();
                for (long m = 0; m < 120; m++) {
                    Instant time = START.plus(Duration.ofMinutes(m));
                    batch.addAll(fleet.minute(m, time));
                    // Plan hash a for 40 minutes, b for 40, a again: three runs.
                    batch.add(new Measurement("one", "query_plans", time, List.of(new Measurement.Row(
                            values("plan", "[{\"Plan\": {\"Node Type\": \"Seq Scan\", \"m\": " + m + "}}]",
                                    "plan_hash", m < 40 || m >= 80 ? "aaaa" : "bbbb", "planned_as", "planner"),
                            Map.of("queryid", FleetHistory.STATEMENT, "dbname", "app"))), Map.of()));
                    // Three samples a minute: two waiting on a lock, one running.
                    batch.add(new Measurement("one", "query_samples", time, List.of(
                            sample("Lock", "transactionid"), sample("Lock", "transactionid"), sample("", "")), Map.of()));
                }
                sink.write(batch);
            } finally {
                sink.close();
            }
        }
        var plugin = new PostgresHistoryPlugin();
        readers = new HistoryReaders(List.of(plugin.create("readers", new PostgresHistorySettings(PG.connStr(DB),
                null, null, null, Duration.ofSeconds(5), null))), () -> null, Duration.ofSeconds(8));
    }

    @AfterAll
    static void close() {
        if (readers != null) {
            readers.close();
        }
    }

    @Test
    void aMetricWhoseReadIsBlockedIsNamedWithTheStoreAndTheOtherMetricsAreAnswered() throws Exception {
        try (Connection locker = PG.connect(DB); Statement s = locker.createStatement()) {
            locker.setAutoCommit(false);
            s.execute("LOCK TABLE public.db_stats IN ACCESS EXCLUSIVE MODE");
            long started = System.nanoTime();
            StoredHistory.Answer<Series> answer = readers.series("one", TimeRange.of(START, END),
                    Set.of("db_stats", "backends"));
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(8));
            assertThat(answer.store()).isEqualTo("postgres");
            assertThat(answer.error()).startsWith("postgres: db_stats: ").doesNotContain("backends");
            assertThat(answer.items()).extracting(Series::metric).containsOnly("backends").isNotEmpty();
            locker.rollback();
        }
        assertThat(readers.series("one", TimeRange.of(START, END), Set.of("db_stats")).error()).isNull();
    }

    @Test
    void aStoreThatIsDownAnswersWithItsNameAndNoSeries() throws Exception {
        int closed;
        try (var socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        var plugin = new PostgresHistoryPlugin();
        try (var down = new HistoryReaders(List.of(plugin.create("down", new PostgresHistorySettings(
                "postgresql://nobody:secret-pw@127.0.0.1:" + closed + "/none", null, null, null, null, null))),
                () -> null, Duration.ofSeconds(10))) {
            StoredHistory.Answer<Series> answer = down.series("one", TimeRange.of(START, END), Set.of("db_stats"));
            assertThat(answer.items()).isEmpty();
            assertThat(answer.error()).startsWith("postgres: db_stats: ").contains("127.0.0.1:" + closed)
                    .doesNotContain("secret-pw");
        }
    }

    @Test
    void aWrongPasswordIsNamedAsSuchWithoutThePasswordInTheAnswerOrTheLog() throws Exception {
        var root = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        var logs = new ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent>();
        logs.start();
        root.addAppender(logs);
        String password = "wrong-pw-7Qx9";
        try (var catcher = new io.pgharvest.testsupport.PasswordCatcher();
                var wrong = new HistoryReaders(List.of(new PostgresHistoryPlugin().create("wrong",
                        new PostgresHistorySettings("postgresql://reader:" + password + "@127.0.0.1:" + catcher.port()
                                + "/metrics", null, null, null, null, null))), () -> null, Duration.ofSeconds(10))) {
            StoredHistory.Answer<Series> answer = wrong.series("one", TimeRange.of(START, END), Set.of("db_stats"));
            assertThat(catcher.passwords()).as("the reader did send it").contains(password);
            assertThat(answer.error()).startsWith("postgres: db_stats: ").contains("28P01")
                    .contains("127.0.0.1:" + catcher.port()).doesNotContain(password);
            StoredHistory.Answer<io.pgharvest.window.Statement> statements = wrong.statements("one",
                    TimeRange.of(START, END));
            assertThat(statements.error()).contains("28P01").doesNotContain(password);
        } finally {
            root.detachAppender(logs);
        }
        assertThat(logs.list).isNotEmpty().allSatisfy(event -> {
            assertThat(event.getFormattedMessage()).doesNotContain(password);
            for (var cause = event.getThrowableProxy(); cause != null; cause = cause.getCause()) {
                assertThat(cause.getMessage() == null ? "" : cause.getMessage()).doesNotContain(password);
            }
        });
    }

    @Test
    void aStatementsPlansAreRunsOfAHashAndItsWaitsAreSharesOfTheSamples() {
        StoredHistory.StatementPast past = readers.statement("one", FleetHistory.STATEMENT, TimeRange.of(START, END));
        assertThat(past.error()).isNull();
        List<Plan> plans = past.plans();
        assertThat(plans).extracting(Plan::hash).containsExactly("aaaa", "bbbb", "aaaa");
        Plan newest = plans.getFirst();
        assertThat(newest.changedAt()).isEqualTo(START.plus(Duration.ofMinutes(80)));
        assertThat(newest.previousHash()).isEqualTo("bbbb");
        assertThat(newest.previousReadAt()).isEqualTo(START.plus(Duration.ofMinutes(79)));
        assertThat(newest.readAt()).isEqualTo(START.plus(Duration.ofMinutes(119)));
        assertThat(newest.plan()).contains("\"m\": 119");
        assertThat(plans.getLast().changedAt()).isNull();
        assertThat(past.waits()).containsExactly(new WaitShare("Lock", "transactionid", 240, 2.0 / 3),
                new WaitShare("", "", 120, 1.0 / 3));
        assertThat(past.series()).extracting(Series::column)
                .containsExactlyInAnyOrder("calls", "total_exec_time", "rows", "shared_blks_read");
        // The list of statements marks the newest change within the range.
        var listed = readers.statements("one", TimeRange.of(START, END)).items().stream()
                .filter(s -> s.queryid().equals(FleetHistory.STATEMENT)).findFirst().orElseThrow();
        assertThat(listed.planChangedAt()).isEqualTo(START.plus(Duration.ofMinutes(80)));
        assertThat(readers.statements("one", TimeRange.of(START, START.plus(Duration.ofMinutes(30)))).items())
                .allMatch(s -> s.planChangedAt() == null);
    }

    private static Measurement.Row sample(String type, String event) {
        return new Measurement.Row(values("state", "active", "wait_event_type", type, "wait_event", event),
                Map.of("queryid", FleetHistory.STATEMENT, "pid", "1" + type.length()));
    }

    private static Map<String, Object> values(Object... namesAndValues) {
        var values = new LinkedHashMap<String, Object>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            values.put((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        return values;
    }
}
