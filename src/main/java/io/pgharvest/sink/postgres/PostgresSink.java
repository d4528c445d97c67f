package io.pgharvest.sink.postgres;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.util.DriverDataSource;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkRejectedException;
import io.pgharvest.support.SmallPools;
import java.io.ByteArrayOutputStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.postgresql.copy.CopyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes measurements into a PostgreSQL storage database with pgwatch's layout (see
 * {@code db/sink-postgres/V1__storage_schema.sql}): one COPY per metric table per batch, all in
 * one transaction, so a batch is stored entirely or not at all and can be retried safely.
 *
 * <p>The schema is migrated with Flyway on the first write, not at start-up: pgharvest starts
 * while its storage is down and spills until it is back. When the database rejects data
 * (SQLState class 22 or 54, e.g. a value too large), the batch is written again one measurement
 * per savepoint and only the rejected ones are given up ({@link SinkRejectedException}). When a
 * metric's table conflicts with what the database holds (a plain table of another shape under
 * its name, a missing privilege: SQLState classes 42, 23, 0A, 44), the batch is written again one
 * table per savepoint: the other metrics are stored, and the conflicting metric's measurements
 * are parked (kept and retried by the channel) with the table named.
 *
 * <p>Connections come from a HikariCP pool of {@link #POOL_SIZE}, one for each of its three users,
 * so none waits for another's: the writer, the table-creation thread ({@link SelectedTables}) and
 * the maintenance thread ({@link PartitionMaintenance}), whose maintainer session is kept between
 * runs. The schema migration takes connections of its own, outside the pool: Flyway needs two at
 * once, and taking them from the pool while the maintainer holds one stalled every user of a new
 * sink until the pool timed out (issue 23). {@link #write} is called by one writer thread only.
 */
public final class PostgresSink implements Sink {

    private static final Logger log = LoggerFactory.getLogger(PostgresSink.class);
    private static final int COPY_CHUNK = 1 << 20;
    /** Writer, table creation and maintenance: one connection each. */
    static final int POOL_SIZE = 3;

    private final String name;
    private final String maskedUrl;
    private final HikariDataSource dataSource;
    /** Unpooled: the schema migration's own connections. */
    private final DataSource migrationSource;
    private final Clock clock;
    private final MetricTables tables;
    private final CopyEncoder encoder = new CopyEncoder();
    private final CopyBuffer copyBuffer = new CopyBuffer();
    private final ReentrantLock schemaLock = new ReentrantLock();
    private final PartitionMaintenance maintenance;
    private final SelectedTables selectedTables;
    private volatile boolean schemaReady;

    private PostgresSink(String name, String maskedUrl, HikariDataSource dataSource, DataSource migrationSource,
            PostgresSinkProperties settings, MetricCatalog catalog, Clock clock) {
        this.name = name;
        this.maskedUrl = maskedUrl;
        this.dataSource = dataSource;
        this.migrationSource = migrationSource;
        this.clock = clock;
        var layout = new PartitionLayout(settings.partitionInterval());
        this.tables = new MetricTables(layout, settings.partitionsAhead());
        this.maintenance = new PartitionMaintenance(name, dataSource, this::ensureSchema,
                new MetricTables(layout, settings.partitionsAhead()), settings.retention(),
                settings.maintenanceInterval(), clock);
        this.selectedTables = new SelectedTables(name, dataSource, this::ensureSchema,
                new MetricTables(layout, settings.partitionsAhead()), catalog, clock);
    }

    /**
     * A sink for the entry at {@code property} (e.g. {@code pgharvest.sinks[0]}); does not connect.
     *
     * @throws IllegalArgumentException naming {@code property + ".url"} when the URL is unusable
     */
    public static PostgresSink create(String property, String name, PostgresSinkProperties settings,
            SinkPoolThreads threads, Clock clock) {
        return create(property, name, settings, threads, MetricCatalog.empty(), clock);
    }

    /**
     * As {@link #create(String, String, PostgresSinkProperties, SinkPoolThreads, Clock)}; the tables of the metrics
     * {@code catalog} says the sources select are created before their first row.
     */
    public static PostgresSink create(String property, String name, PostgresSinkProperties settings,
            SinkPoolThreads threads, MetricCatalog catalog, Clock clock) {
        var target = Target.of(property, settings);
        var config = SmallPools.config("sink-" + name, target.jdbcUrl(), target.properties(),
                POOL_SIZE, "SET lock_timeout = '30s'");
        config.setScheduledExecutor(threads.housekeeping());
        config.setThreadFactory(threads.connectionThreads());
        var migrationSource = new DriverDataSource(target.jdbcUrl(), null, target.properties(), null, null);
        var sink = new PostgresSink(name, target.masked(), new HikariDataSource(config), migrationSource,
                settings, catalog, clock);
        sink.maintenance.start();
        sink.selectedTables.start();
        log.info("PostgreSQL sink {} writes to {}", name, target.masked());
        return sink;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void write(List<Measurement> batch) throws Exception {
        Map<String, List<Measurement>> byTable = groupByTable(batch);
        if (byTable.isEmpty()) {
            return; // nothing but measurements without rows
        }
        ensureSchema();
        long started = System.nanoTime();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                MetricTables.Changes changes = prepare(c, byTable);
                for (var entry : byTable.entrySet()) {
                    copy(c, entry.getKey(), entry.getValue());
                }
                c.commit();
                tables.committed(changes);
                maintenance.firstBatchWritten();
                if (log.isDebugEnabled()) {
                    log.debug("Sink {}: {} measurements into {} tables committed in {} ms", name, batch.size(),
                            byTable.size(), (System.nanoTime() - started) / 1_000_000);
                }
            } catch (SQLException e) {
                rollback(c);
                tables.forget();
                if (isConflict(e)) {
                    log.warn("Sink {}: a table of the batch conflicts with the storage ({}); isolating it",
                            name, e.getMessage());
                    writeIsolatingTables(c, byTable);
                    return;
                }
                if (!isDataError(e)) {
                    throw new SQLException("storage " + maskedUrl + ": " + e.getMessage(), e.getSQLState(), e);
                }
                log.warn("Sink {}: the database rejected data of a batch ({}); isolating the measurements at fault",
                        name, e.getMessage());
                writeIsolating(c, byTable);
            }
        }
    }

    /** The storage answers and pgharvest's schema is in place: one short query. */
    @Override
    public boolean probe() throws SQLException {
        ensureSchema();
        try (Connection c = dataSource.getConnection(); var st = c.createStatement()) {
            st.setQueryTimeout(5);
            st.execute("select 1");
            return true;
        } catch (SQLException e) {
            throw new SQLException("storage " + maskedUrl + ": " + e.getMessage(), e.getSQLState(), e);
        }
    }

    @Override
    public void close() {
        selectedTables.stop();
        maintenance.stop();
        dataSource.close();
    }

    /** Creates or upgrades pgharvest's schema once per run; Flyway serializes concurrent instances. */
    void ensureSchema() throws SQLException {
        if (schemaReady) {
            return;
        }
        schemaLock.lock();
        try {
            if (!schemaReady) {
                boolean adopting = PgwatchStorage.prepareAdoption(migrationSource, maskedUrl);
                if (adopting) {
                    log.info("Sink {}: {} is a pgwatch storage database; taking it over with its data", name,
                            maskedUrl);
                }
                try {
                    Flyway.configure(PostgresSink.class.getClassLoader())
                            .dataSource(migrationSource)
                            .schemas("admin")
                            .table("pgharvest_schema_history")
                            .locations("classpath:db/sink-postgres")
                            .baselineOnMigrate(adopting)
                            .baselineVersion("1")
                            .baselineDescription("pgwatch storage schema adopted")
                            .load()
                            .migrate();
                } catch (RuntimeException e) {
                    throw new SQLException("storage schema of " + maskedUrl + " cannot be migrated: "
                            + e.getMessage(), e);
                }
                schemaReady = true;
            }
        } finally {
            schemaLock.unlock();
        }
    }

    /**
     * Writes each measurement under its own savepoint, its tables and partitions included; gives up
     * only those the database rejects. Cache changes of rolled-back measurements are discarded.
     */
    private void writeIsolating(Connection c, Map<String, List<Measurement>> byTable) throws Exception {
        var rejected = new ArrayList<Measurement>();
        var accepted = new ArrayList<MetricTables.Changes>();
        SQLException firstRejection = null;
        try {
            for (var entry : byTable.entrySet()) {
                for (Measurement m : entry.getValue()) {
                    Savepoint savepoint = c.setSavepoint();
                    try {
                        MetricTables.Changes changes = prepare(c, Map.of(entry.getKey(), List.of(m)));
                        copy(c, entry.getKey(), List.of(m));
                        c.releaseSavepoint(savepoint);
                        accepted.add(changes);
                    } catch (SQLException e) {
                        if (!isDataError(e)) {
                            throw e;
                        }
                        c.rollback(savepoint);
                        rejected.add(m);
                        firstRejection = firstRejection == null ? e : firstRejection;
                    }
                }
            }
            c.commit();
            accepted.forEach(tables::committed);
            maintenance.firstBatchWritten();
        } catch (SQLException e) {
            rollback(c);
            tables.forget();
            throw new SQLException("storage " + maskedUrl + ": " + e.getMessage(), e.getSQLState(), e);
        }
        if (!rejected.isEmpty()) {
            Measurement first = rejected.getFirst();
            throw new SinkRejectedException("storage " + maskedUrl + " rejected " + rejected.size()
                    + " measurements, first of source " + first.source() + ", metric " + first.metric() + ": "
                    + firstRejection.getMessage(), rejected, firstRejection);
        }
    }

    /**
     * Writes each table's measurements under its own savepoint; parks the measurements of the
     * tables that conflict with the storage. A data error inside a table is not handled here:
     * that table is parked too, and split by measurement on its next try.
     */
    private void writeIsolatingTables(Connection c, Map<String, List<Measurement>> byTable) throws Exception {
        var parked = new ArrayList<Measurement>();
        var conflicts = new LinkedHashMap<String, String>();
        var accepted = new ArrayList<MetricTables.Changes>();
        SQLException first = null;
        try {
            for (var entry : byTable.entrySet()) {
                Savepoint savepoint = c.setSavepoint();
                try {
                    MetricTables.Changes changes = prepare(c, Map.of(entry.getKey(), entry.getValue()));
                    copy(c, entry.getKey(), entry.getValue());
                    c.releaseSavepoint(savepoint);
                    accepted.add(changes);
                } catch (SQLException e) {
                    if (!isConflict(e) && !isDataError(e)) {
                        throw e;
                    }
                    c.rollback(savepoint);
                    parked.addAll(entry.getValue());
                    conflicts.put(entry.getKey(), "[SQLState " + e.getSQLState() + "] " + e.getMessage());
                    first = first == null ? e : first;
                }
            }
            c.commit();
            accepted.forEach(tables::committed);
            maintenance.firstBatchWritten();
        } catch (SQLException e) {
            rollback(c);
            tables.forget();
            throw new SQLException("storage " + maskedUrl + ": " + e.getMessage(), e.getSQLState(), e);
        }
        if (!parked.isEmpty()) {
            throw new SinkRejectedException("storage " + maskedUrl + " cannot take table(s) " + conflicts.keySet()
                    + "; their " + parked.size() + " measurements are kept: " + first.getMessage(), parked, true,
                    conflicts, first);
        }
    }

    /**
     * The storage refuses a table, not the data and not the connection: retrying the same write
     * fails again. Not "no partition for the row" (23514): a partition dropped underneath is
     * created again by the retry.
     */
    static boolean isConflict(SQLException e) {
        String state = e.getSQLState();
        return state != null && !state.equals("23514") && (state.startsWith("42") || state.startsWith("23")
                || state.startsWith("0A") || state.startsWith("44"));
    }

    private MetricTables.Changes prepare(Connection c, Map<String, List<Measurement>> byTable) throws SQLException {
        var times = new LinkedHashMap<String, Set<Instant>>();
        var sources = new LinkedHashMap<String, Set<String>>();
        byTable.forEach((table, measurements) -> {
            var tableTimes = new HashSet<Instant>();
            var tableSources = new HashSet<String>();
            for (Measurement m : measurements) {
                if (!m.rows().isEmpty()) {
                    tableTimes.add(m.time());
                    tableSources.add(m.source());
                }
            }
            times.put(table, tableTimes);
            sources.put(table, tableSources);
        });
        return tables.prepare(c, times, sources, clock.instant());
    }

    private void copy(Connection c, String table, List<Measurement> measurements) throws SQLException {
        CopyManager copyManager = c.unwrap(PGConnection.class).getCopyAPI();
        CopyIn copyIn = copyManager.copyIn("COPY public." + PartitionLayout.quoteIdentifier(table) + " "
                + CopyEncoder.COLUMNS + " FROM STDIN");
        try {
            copyBuffer.reset();
            for (Measurement m : measurements) {
                encoder.encode(m, copyBuffer);
                if (copyBuffer.size() >= COPY_CHUNK) {
                    copyIn.writeToCopy(copyBuffer.bytes(), 0, copyBuffer.size());
                    copyBuffer.reset();
                }
            }
            if (copyBuffer.size() > 0) {
                copyIn.writeToCopy(copyBuffer.bytes(), 0, copyBuffer.size());
            }
            copyIn.endCopy();
        } finally {
            if (copyIn.isActive()) {
                copyIn.cancelCopy();
            }
            copyBuffer.reset();
        }
    }

    /**
     * By table name: every transaction that locks several metric tables (this one, table creation,
     * maintenance) takes their locks in the same order, so none can wait on another in a cycle.
     */
    private static Map<String, List<Measurement>> groupByTable(List<Measurement> batch) {
        var byTable = new TreeMap<String, List<Measurement>>();
        for (Measurement m : batch) {
            if (!m.rows().isEmpty()) {
                byTable.computeIfAbsent(PartitionLayout.tableName(m.metric()), t -> new ArrayList<>()).add(m);
            }
        }
        return byTable;
    }

    /** Data exceptions and program limits: retrying the same data cannot succeed. */
    static boolean isDataError(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.startsWith("22") || state.startsWith("54"));
    }

    private void rollback(Connection c) {
        try {
            c.rollback();
        } catch (SQLException e) {
            log.debug("Sink {}: rollback failed (connection likely gone)", name, e);
        }
    }

    /** The encoder's output, handed to COPY without copying. */
    private static final class CopyBuffer extends ByteArrayOutputStream {
        CopyBuffer() {
            super(COPY_CHUNK + 64 * 1024);
        }

        byte[] bytes() {
            return buf;
        }
    }

    /**
     * Where the sink connects: the JDBC form of the configured URL, with credentials kept apart (the
     * history reader of a postgres sink connects to the same database with it).
     */
    public record Target(String jdbcUrl, Properties properties, String masked) {

        /** @throws IllegalArgumentException naming {@code property + ".url"} when the URL is unusable */
        public static Target of(String property, PostgresSinkProperties settings) {
            String url = settings.url().strip();
            Properties properties = new Properties();
            String jdbcUrl;
            String masked;
            if (url.toLowerCase(Locale.ROOT).startsWith("jdbc:postgresql:")) {
                jdbcUrl = url;
                int query = url.indexOf('?');
                masked = query < 0 ? url : url.substring(0, query);
            } else {
                ConnectionString parsed;
                try {
                    parsed = ConnectionString.parse(url);
                } catch (IllegalArgumentException e) {
                    // The parser's message never contains the password.
                    throw new IllegalArgumentException(property + ".url: " + e.getMessage(), e);
                }
                jdbcUrl = parsed.jdbcUrl();
                properties.putAll(parsed.jdbcProperties());
                masked = parsed.masked();
            }
            if (settings.user() != null && !settings.user().isBlank()) {
                properties.setProperty("user", settings.user());
            }
            if (settings.password() != null) {
                properties.setProperty("password", settings.password());
            }
            properties.putIfAbsent("ApplicationName", "pgharvest-sink");
            properties.putIfAbsent("connectTimeout", "5");
            properties.putIfAbsent("socketTimeout", "300");
            properties.putIfAbsent("tcpKeepAlive", "true");
            return new Target(jdbcUrl, properties, masked);
        }

        @Override
        public String toString() {
            return masked;
        }
    }
}
