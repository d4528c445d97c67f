package io.pgharvest.history.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.pgharvest.history.HistoryReadException;
import io.pgharvest.history.HistoryReader;
import io.pgharvest.sink.postgres.PostgresSink;
import io.pgharvest.sink.postgres.PostgresSinkProperties;
import io.pgharvest.support.SmallPools;
import io.pgharvest.window.KeyNumbers;
import io.pgharvest.window.Plan;
import io.pgharvest.window.Series;
import io.pgharvest.window.SeriesKind;
import io.pgharvest.window.Statement;
import io.pgharvest.window.TimeRange;
import io.pgharvest.window.WaitShare;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads pgwatch's storage layout ({@code public.<metric>(time, dbname, data, tag_data)}, time
 * partitions) back, every query aggregated on the server and bounded by the range's time on the
 * partitioned table (so the planner reads only the partitions of the range) and by
 * {@code dbname = source} (never another source's rows). Its sessions are its own small pool,
 * read-only ({@code default_transaction_read_only}) and under a statement timeout, so a slow read
 * holds neither the sink's connections nor a request beyond the timeout.
 */
final class PostgresHistoryReader implements HistoryReader {

    private static final Logger log = LoggerFactory.getLogger(PostgresHistoryReader.class);
    static final String STORE = "postgres";

    private final String name;
    private final String masked;
    private final HikariDataSource pool;
    private final Duration retention;

    private PostgresHistoryReader(String name, String masked, HikariDataSource pool, Duration retention) {
        this.name = name;
        this.masked = masked;
        this.pool = pool;
        this.retention = retention;
    }

    static PostgresHistoryReader open(String name, PostgresHistorySettings settings) {
        var target = PostgresSink.Target.of("pgharvest.history (" + name + ")",
                new PostgresSinkProperties(settings.url(), settings.user(), settings.password(), null, null, null, null));
        var properties = new Properties();
        properties.putAll(target.properties());
        properties.setProperty("ApplicationName", "pgharvest-history");
        properties.setProperty("socketTimeout", Long.toString(settings.statementTimeout().toSeconds() + 30));
        var config = SmallPools.config("history-" + name, target.jdbcUrl(), properties, settings.poolSize(),
                "SET default_transaction_read_only = on; SET statement_timeout = "
                        + settings.statementTimeout().toMillis() + "; SET lock_timeout = '1s'");
        config.setReadOnly(true);
        config.setThreadFactory(Thread.ofVirtual().name("history-" + name + "-pool-", 0).factory());
        log.info("History reader {} reads {}", name, target.masked());
        return new PostgresHistoryReader(name, target.masked(), new HikariDataSource(config), settings.retention());
    }

    @Override
    public String store() {
        return STORE;
    }

    @Override
    public Duration retention() {
        return retention;
    }

    @Override
    public List<Series> series(String source, TimeRange range, String metric, Map<String, SeriesKind> columns,
            Map<String, String> tags) throws HistoryReadException {
        return read(metric, List.of(), c -> StoredSeries.read(c, source, range, metric, columns, tags));
    }

    @Override
    public List<Statement> statements(String source, TimeRange range, int limit) throws HistoryReadException {
        return read("query_stats", List.of(), c -> StoredStatements.top(c, source, range, limit));
    }

    @Override
    public Map<String, KeyNumbers> keyNumbers(TimeRange range) throws HistoryReadException {
        return read("key numbers", Map.of(), c -> StoredKeyNumbers.read(c, range));
    }

    @Override
    public String text(String source, String queryid) throws HistoryReadException {
        return read("query_texts", null, c -> StoredStatements.text(c, source, queryid));
    }

    @Override
    public List<Plan> plans(String source, String queryid, TimeRange range) throws HistoryReadException {
        return read("query_plans", List.of(), c -> StoredPlans.runs(c, source, queryid, range));
    }

    @Override
    public List<WaitShare> waits(String source, String queryid, TimeRange range) throws HistoryReadException {
        return read("query_samples", List.of(), c -> StoredStatements.waits(c, source, queryid, range));
    }

    /** A read on a connection of the pool; a missing metric table reads as nothing (the metric was never stored). */
    private <T> T read(String metric, T none, Query<T> query) throws HistoryReadException {
        try (Connection c = pool.getConnection()) {
            return query.run(c);
        } catch (SQLException e) {
            if ("42P01".equals(e.getSQLState())) {
                return none;
            }
            String state = e.getSQLState() == null ? "" : " (SQLState " + e.getSQLState() + ")";
            String why = "57014".equals(e.getSQLState()) ? "the statement timeout cancelled the read"
                    : e.getMessage();
            throw new HistoryReadException("reading " + metric + " from " + masked + " failed: " + why + state, e);
        }
    }

    /** One read on one connection. */
    @FunctionalInterface
    interface Query<T> {
        T run(Connection connection) throws SQLException;
    }

    /** Binds the time bounds of a range as timestamptz parameters. */
    static void bindRange(PreparedStatement statement, int first, java.time.Instant from, java.time.Instant to)
            throws SQLException {
        statement.setObject(first, java.time.OffsetDateTime.ofInstant(from, java.time.ZoneOffset.UTC));
        statement.setObject(first + 1, java.time.OffsetDateTime.ofInstant(to, java.time.ZoneOffset.UTC));
    }

    static String table(String metric) {
        return "public.\"" + metric.replace("\"", "\"\"") + '"';
    }

    @Override
    public void close() {
        pool.close();
        log.debug("History reader {} closed", name);
    }
}
