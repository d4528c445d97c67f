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
 * The PostgreSQL servers the collectors watch: one empty database per source ({@code bench_0001}
 * ...), at most {@code databasesPerServer} of them per server, as a fleet spreads its databases
 * over servers. Each server has pg_stat_statements loaded and autovacuum off (its launcher would
 * start a worker every naptime / databases, connecting to the very databases whose transactions
 * are counted).
 *
 * <p>Why several servers: many catalog metrics read cluster-wide views (pg_stat_activity,
 * pg_locks) whose cost grows with the number of sessions on the server. With 1,000 sources
 * on one server, every one of 1,000 sessions would scan 1,000 sessions per metric per tick, a
 * quadratic load that says nothing about the collector.
 *
 * <p>Every figure read here is a cumulative counter or a /proc reading; runs use deltas.
 */
final class MonitoredFleet implements AutoCloseable {

    static final String DATABASE_PREFIX = "bench_";
    private static final String BENCH_DATABASES = "datname like 'bench\\_%'";

    private final int databasesPerServer;
    private final List<Server> servers = new ArrayList<>();
    private int databases;

    /** One server of the fleet and the pid of its postmaster. */
    private record Server(TestPostgres postgres, long postmasterPid) {
    }

    MonitoredFleet(int databasesPerServer) {
        this.databasesPerServer = databasesPerServer;
    }

    int servers() {
        return servers.size();
    }

    /** Creates servers and databases up to {@code count} sources (those created before are kept). */
    void ensureDatabases(int count) {
        for (int i = databases + 1; i <= count; i++) {
            server(i).postgres().createDatabase(databaseName(i));
            databases = i;
        }
    }

    private Server server(int sourceIndex) {
        int serverIndex = (sourceIndex - 1) / databasesPerServer;
        while (servers.size() <= serverIndex) {
            servers.add(startServer());
        }
        return servers.get(serverIndex);
    }

    private Server startServer() {
        TestPostgres postgres = TestPostgres.start(Map.of(
                "shared_preload_libraries", "pg_stat_statements",
                "pg_stat_statements.max", Integer.toString(Math.max(5_000, databasesPerServer * 100)),
                "max_connections", Integer.toString(databasesPerServer + 60),
                "autovacuum", "off"));
        try {
            postgres.execute("postgres", "create extension if not exists pg_stat_statements");
            return new Server(postgres, postmasterPid(postgres));
        } catch (RuntimeException e) {
            postgres.close();
            throw e;
        }
    }

    int majorVersion() {
        return first().majorVersion();
    }

    String version() {
        return first().queryString("postgres", "show server_version");
    }

    private TestPostgres first() {
        return server(1).postgres();
    }

    static String databaseName(int index) {
        return "%s%04d".formatted(DATABASE_PREFIX, index);
    }

    String connStr(int index) {
        return server(index).postgres().connStr(databaseName(index));
    }

    String jdbcUrl(int index) {
        return server(index).postgres().jdbcUrl(databaseName(index));
    }

    /** Cumulative server-side counters of all bench databases. */
    record Counters(long transactions, long statements, long setConfigStatements, double statementMillis,
            long statementsDeallocated) {

        static final Counters ZERO = new Counters(0, 0, 0, 0, 0);

        Counters plus(Counters other) {
            return new Counters(transactions + other.transactions, statements + other.statements,
                    setConfigStatements + other.setConfigStatements, statementMillis + other.statementMillis,
                    statementsDeallocated + other.statementsDeallocated);
        }

        Counters minus(Counters earlier) {
            return new Counters(transactions - earlier.transactions, statements - earlier.statements,
                    setConfigStatements - earlier.setConfigStatements, statementMillis - earlier.statementMillis,
                    statementsDeallocated - earlier.statementsDeallocated);
        }
    }

    /**
     * Transactions (commits + rollbacks of pg_stat_database) and statements (calls of
     * pg_stat_statements) in the bench databases of every server. A backend flushes its
     * transaction counts when it goes idle, at most once a second (PostgreSQL 15+), so a window of a
     * minute or more sees them to within a second's worth at each end.
     */
    Counters counters() {
        Counters sum = Counters.ZERO;
        for (Server server : servers) {
            sum = sum.plus(counters(server.postgres()));
        }
        return sum;
    }

    private static Counters counters(TestPostgres postgres) {
        try (Connection c = postgres.connect("postgres"); Statement st = c.createStatement()) {
            long transactions;
            try (ResultSet rs = st.executeQuery("select coalesce(sum(xact_commit + xact_rollback), 0)::int8"
                    + " from pg_stat_database where " + BENCH_DATABASES)) {
                rs.next();
                transactions = rs.getLong(1);
            }
            long statements;
            long setConfig;
            double millis;
            // pgharvest wraps a metric with its own statement timeout in two set_config calls
            try (ResultSet rs = st.executeQuery("select coalesce(sum(s.calls), 0)::int8,"
                    + " coalesce(sum(s.calls) filter (where s.query like 'select set_config(%'), 0)::int8,"
                    + " coalesce(sum(s.total_exec_time), 0)::float8 from pg_stat_statements s"
                    + " join pg_database d on d.oid = s.dbid where d." + BENCH_DATABASES)) {
                rs.next();
                statements = rs.getLong(1);
                setConfig = rs.getLong(2);
                millis = rs.getDouble(3);
            }
            long dealloc;
            try (ResultSet rs = st.executeQuery("select dealloc from pg_stat_statements_info")) {
                rs.next();
                dealloc = rs.getLong(1);
            }
            return new Counters(transactions, statements, setConfig, millis, dealloc);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read statistics of " + postgres, e);
        }
    }

    /** Backends connected to a bench database under {@code applicationName}, on every server: pid -> database. */
    Map<Long, String> backends(String applicationName) {
        var result = new HashMap<Long, String>();
        for (Server server : servers) {
            try (Connection c = server.postgres().connect("postgres");
                 PreparedStatement st = c.prepareStatement("select pid, datname from pg_stat_activity"
                         + " where application_name = ? and " + BENCH_DATABASES)) {
                st.setString(1, applicationName);
                try (ResultSet rs = st.executeQuery()) {
                    while (rs.next()) {
                        result.put(rs.getLong(1), rs.getString(2));
                    }
                }
            } catch (SQLException e) {
                throw new IllegalStateException("Cannot list backends of " + applicationName + " on "
                        + server.postgres(), e);
            }
        }
        return result;
    }

    /** CPU ticks per backend pid (pids that ended meanwhile are left out). */
    static Map<Long, Long> cpuTicks(Iterable<Long> pids) {
        var ticks = new HashMap<Long, Long>();
        for (long pid : pids) {
            ProcStats.stat(pid).ifPresent(s -> ticks.put(pid, s.cpuTicks()));
        }
        return ticks;
    }

    /** CPU ticks of every server: postmasters plus all their children (backends, checkpointer ...). */
    long serversCpuTicks() {
        long ticks = 0;
        for (Server server : servers) {
            List<ProcStats.Stat> all = new ArrayList<>(ProcStats.children(server.postmasterPid()));
            ProcStats.stat(server.postmasterPid()).ifPresent(all::add);
            ticks += all.stream().mapToLong(ProcStats.Stat::cpuTicks).sum();
        }
        return ticks;
    }

    /** Resets pg_stat_statements so that its hash tables hold only the next run's queries. */
    void resetStatements() {
        servers.forEach(s -> s.postgres().queryString("postgres", "select pg_stat_statements_reset()::text"));
    }

    /** The statements of the first server's bench databases with the most execution time, summed over databases. */
    String statementProfile(int limit) {
        var out = new StringBuilder("calls | total ms | mean ms | rows | query (first server)\n");
        try (Connection c = first().connect("postgres");
             PreparedStatement st = c.prepareStatement("""
                     select sum(s.calls)::int8, sum(s.total_exec_time)::float8,
                            (sum(s.total_exec_time) / nullif(sum(s.calls), 0))::float8, sum(s.rows)::int8,
                            left(regexp_replace(s.query, '\\s+', ' ', 'g'), 110)
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

    /** How many of {@code sqls} return at least one row in the first bench database. */
    long returningRows(Iterable<String> sqls) {
        long count = 0;
        try (Connection c = first().connect(databaseName(1)); Statement st = c.createStatement()) {
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
    private static long postmasterPid(TestPostgres postgres) {
        try (Connection c = postgres.connect("postgres"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("select pg_backend_pid()")) {
            rs.next();
            long backend = rs.getLong(1);
            return ProcStats.stat(backend).orElseThrow(
                    () -> new IllegalStateException("No /proc entry for backend " + backend)).parentPid();
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot find the postmaster of " + postgres, e);
        }
    }

    @Override
    public void close() {
        for (Server server : servers) {
            server.postgres().close();
        }
        servers.clear();
    }
}
