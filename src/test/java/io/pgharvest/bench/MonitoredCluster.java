package io.pgharvest.bench;

import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The PostgreSQL cluster the collectors watch: one empty database per source
 * ({@code bench_0001} ...), pg_stat_statements loaded, autovacuum off (with a thousand
 * databases its launcher would start a worker every 60 ms, connecting to the very databases
 * whose transactions are counted), and enough connections for the largest run.
 *
 * <p>Every figure read here is a cumulative counter or a /proc reading; runs use deltas.
 */
final class MonitoredCluster implements AutoCloseable {

    static final String DATABASE_PREFIX = "bench_";
    private static final String BENCH_DATABASES = "datname like 'bench\\_%'";

    private final TestPostgres server;
    private final long postmasterPid;
    private int databases;

    private MonitoredCluster(TestPostgres server) {
        this.server = server;
        this.postmasterPid = postmasterPid(server);
    }

    static MonitoredCluster start(int maxSources) {
        int statements = Math.max(5_000, maxSources * 20);
        TestPostgres server = TestPostgres.start(Map.of(
                "shared_preload_libraries", "pg_stat_statements",
                "pg_stat_statements.max", Integer.toString(statements),
                "max_connections", Integer.toString(maxSources + 60),
                "autovacuum", "off"));
        try {
            server.execute("postgres", "create extension if not exists pg_stat_statements");
            return new MonitoredCluster(server);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    TestPostgres server() {
        return server;
    }

    int majorVersion() {
        return server.majorVersion();
    }

    String version() {
        return server.queryString("postgres", "show server_version");
    }

    static String databaseName(int index) {
        return "%s%04d".formatted(DATABASE_PREFIX, index);
    }

    /** Creates databases up to {@code count} (those created before are kept). */
    void ensureDatabases(int count) {
        for (int i = databases + 1; i <= count; i++) {
            server.createDatabase(databaseName(i));
        }
        databases = Math.max(databases, count);
    }

    String connStr(int index) {
        return server.connStr(databaseName(index));
    }

    String jdbcUrl(int index) {
        return server.jdbcUrl(databaseName(index));
    }

    /** Cumulative server-side counters of all bench databases. */
    record Counters(long transactions, long statements, double statementMillis, long statementsDeallocated) {

        Counters minus(Counters earlier) {
            return new Counters(transactions - earlier.transactions, statements - earlier.statements,
                    statementMillis - earlier.statementMillis, statementsDeallocated - earlier.statementsDeallocated);
        }
    }

    /**
     * Transactions (commits + rollbacks of pg_stat_database) and statements (calls of
     * pg_stat_statements) in the bench databases. A backend flushes its transaction counts when it
     * goes idle, at most once a second (PostgreSQL 15+), so a window of a minute or more sees them
     * to within a second's worth at each end.
     */
    Counters counters() {
        try (Connection c = server.connect("postgres"); Statement st = c.createStatement()) {
            long transactions;
            try (ResultSet rs = st.executeQuery("select coalesce(sum(xact_commit + xact_rollback), 0)::int8"
                    + " from pg_stat_database where " + BENCH_DATABASES)) {
                rs.next();
                transactions = rs.getLong(1);
            }
            long statements;
            double millis;
            try (ResultSet rs = st.executeQuery("select coalesce(sum(s.calls), 0)::int8,"
                    + " coalesce(sum(s.total_exec_time), 0)::float8 from pg_stat_statements s"
                    + " join pg_database d on d.oid = s.dbid where d." + BENCH_DATABASES)) {
                rs.next();
                statements = rs.getLong(1);
                millis = rs.getDouble(2);
            }
            long dealloc;
            try (ResultSet rs = st.executeQuery("select dealloc from pg_stat_statements_info")) {
                rs.next();
                dealloc = rs.getLong(1);
            }
            return new Counters(transactions, statements, millis, dealloc);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read statistics of the monitored cluster", e);
        }
    }

    /** Backends connected to a bench database under {@code applicationName}: pid -> database. */
    Map<Long, String> backends(String applicationName) {
        try (Connection c = server.connect("postgres");
             PreparedStatement st = c.prepareStatement("select pid, datname from pg_stat_activity"
                     + " where application_name = ? and " + BENCH_DATABASES)) {
            st.setString(1, applicationName);
            var result = new HashMap<Long, String>();
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    result.put(rs.getLong(1), rs.getString(2));
                }
            }
            return result;
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot list backends of " + applicationName, e);
        }
    }

    /** CPU ticks per backend pid (pids that ended meanwhile are left out). */
    static Map<Long, Long> cpuTicks(Iterable<Long> pids) {
        var ticks = new HashMap<Long, Long>();
        for (long pid : pids) {
            ProcStats.stat(pid).ifPresent(s -> ticks.put(pid, s.cpuTicks()));
        }
        return ticks;
    }

    /** CPU ticks of the whole cluster: postmaster plus every child (backends, checkpointer ...). */
    long clusterCpuTicks() {
        List<ProcStats.Stat> all = new ArrayList<>(ProcStats.children(postmasterPid));
        ProcStats.stat(postmasterPid).ifPresent(all::add);
        return all.stream().mapToLong(ProcStats.Stat::cpuTicks).sum();
    }

    /** The statements of the bench databases with the most execution time, summed over databases. */
    String statementProfile(int limit) {
        var out = new StringBuilder("calls | total ms | mean ms | rows | query\n");
        try (Connection c = server.connect("postgres");
             PreparedStatement st = c.prepareStatement("""
                     select sum(s.calls)::int8, sum(s.total_exec_time)::float8,
                            (sum(s.total_exec_time) / nullif(sum(s.calls), 0))::float8, sum(s.rows)::int8,
                            left(regexp_replace(s.query, '\\s+', ' ', 'g'), 90)
                     from pg_stat_statements s join pg_database d on d.oid = s.dbid
                     where d.datname like 'bench\\_%'
                     group by 5 order by 2 desc limit ?""")) {
            st.setInt(1, limit);
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    out.append("%d | %.0f | %.3f | %d | %s%n".formatted(rs.getLong(1), rs.getDouble(2), rs.getDouble(3),
                            rs.getLong(4), rs.getString(5)));
                }
            }
            return out.toString();
        } catch (SQLException e) {
            return "(no statement profile: " + e.getMessage() + ")";
        }
    }

    /** Resets pg_stat_statements so that its hash table holds only the next run's queries. */
    void resetStatements() {
        server.queryString("postgres", "select pg_stat_statements_reset()::text");
    }

    /** How many of {@code sqls} return at least one row in the first bench database. */
    long returningRows(Iterable<String> sqls) {
        long count = 0;
        try (Connection c = server.connect(databaseName(1)); Statement st = c.createStatement()) {
            for (String sql : sqls) {
                try (ResultSet rs = st.executeQuery(sql)) {
                    if (rs.next()) {
                        count++;
                    }
                } catch (SQLException e) {
                    // a metric that fails here fails for the collectors too; it returns nothing
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot run the catalog SQL in " + databaseName(1), e);
        }
        return count;
    }

    /** The parent of a backend, read while the backend's session is still open (it exits with it). */
    private static long postmasterPid(TestPostgres server) {
        try (Connection c = server.connect("postgres"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("select pg_backend_pid()")) {
            rs.next();
            long backend = rs.getLong(1);
            return ProcStats.stat(backend).orElseThrow(
                    () -> new IllegalStateException("No /proc entry for backend " + backend)).parentPid();
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot find the postmaster of " + server, e);
        }
    }

    @Override
    public void close() {
        server.close();
    }
}
