package io.pgharvest.serverlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.serverlog.event.LogCategory;

/**
 * The events {@link LogWorkload#causeEveryCategory} made the server log, and what a reading must
 * find of each.
 *
 * @param table the bloated table autovacuum cleaned (schema-qualified)
 * @param lock {holder pid, waiter pid}
 * @param deadlock {A's pid, B's pid, A's query ID, B's query ID}; A was the victim
 */
public record CausedEvents(String table, long[] lock, long[] deadlock) {

    /**
     * Ticks {@code reading} until it has delivered each event with its typed fields.
     *
     * @param planFormat auto_explain.log_format the server had
     * @param withClientAddress whether the log says the client's address (else connection failures are unavailable)
     */
    void assertFoundBy(LogReading reading, String planFormat, boolean withClientAddress) throws Exception {
        reading.until(LogCategory.AUTOVACUUM, row -> table.equals(row.tags().get("table"))
                && "vacuum".equals(row.values().get("kind")) && Long.valueOf(4000).equals(row.values().get("tuples_removed")));
        reading.until(LogCategory.CHECKPOINTS, row -> String.valueOf(row.values().get("reason")).contains("force")
                && row.values().get("total_s") instanceof Double);
        reading.until(LogCategory.TEMP_FILES, row -> ((Long) row.values().get("size_bytes")) > 0
                && row.values().get("queryid") != null);
        if (withClientAddress) {
            reading.until(LogCategory.CONNECTION_FAILURES, row -> "invalid_password".equals(row.tags().get("cause"))
                    && LogWorkload.PASSWORD_ROLE.equals(row.values().get("user_name"))
                    && "127.0.0.1".equals(row.values().get("client_addr"))
                    && Long.valueOf(1).equals(row.values().get("count")));
        } else {
            assertThatThrownBy(() -> reading.collect(LogCategory.CONNECTION_FAILURES))
                    .isInstanceOf(NativeMetric.Unavailable.class).hasMessageContaining("neither %h nor %r");
        }
        Measurement.Row slow = reading.until(LogCategory.SLOW_STATEMENTS,
                row -> String.valueOf(row.values().get("query")).contains("pg_sleep")
                        && ((Double) row.values().get("duration_ms")) >= 300);
        assertThat(slow.values().get("queryid")).isNotNull();
        reading.until(LogCategory.PLANS, row -> slow.values().get("queryid").equals(row.values().get("queryid"))
                && Double.valueOf(1).equals(row.values().get("actual_rows")) && planFormat.equals(row.values().get("format")));
        reading.until(LogCategory.LOCK_WAITS, row -> "waiting".equals(row.values().get("state"))
                && String.valueOf(lock[1]).equals(row.values().get("pid"))
                && String.valueOf(lock[0]).equals(row.values().get("holder_pids")));
        reading.until(LogCategory.LOCK_WAITS, row -> "acquired".equals(row.values().get("state"))
                && String.valueOf(lock[1]).equals(row.values().get("pid")) && ((Double) row.values().get("wait_ms")) >= 200);
        reading.until(LogCategory.DEADLOCKS, row -> String.valueOf(deadlock[0]).equals(row.values().get("pid"))
                && String.valueOf(deadlock[2]).equals(row.values().get("queryid"))
                && String.valueOf(deadlock[1]).equals(row.values().get("other_pids"))
                && String.valueOf(deadlock[3]).equals(row.values().get("other_queryids")));
        reading.until(LogCategory.ERRORS, row -> "22012".equals(row.values().get("sqlstate"))
                && "22".equals(row.tags().get("class")) && row.values().get("queryid") != null);
    }
}
