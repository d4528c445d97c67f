package io.pgharvest.store.state;

import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * What the catalog version matrix runs the metrics against: a primary with tables, indexes,
 * sequences, a function, a publication and a subscription, replication slots, a streaming
 * standby, and live sessions (a prepared transaction, a lock chain) so that most metrics return
 * rows whose values the test can check.
 */
final class MatrixFixture {

    static final String DB = "catalog_matrix";
    static final String SUBSCRIBER_DB = "catalog_subscriber";
    static final String STANDBY_NAME = "matrix_standby";
    /** The role the metrics run as: pg_monitor plus read access to the fixture's tables, as docs/catalog.md advises. */
    static final String MONITOR_ROLE = "pgharvest_monitor";
    static final Map<String, String> SERVER_SETTINGS = Map.of(
            "shared_preload_libraries", "pg_stat_statements",
            "wal_level", "logical",
            "max_prepared_transactions", "5",
            "track_functions", "all",
            "track_io_timing", "on",
            "max_connections", "60");
    private static final Duration AWAIT = Duration.ofSeconds(60);

    private MatrixFixture() {
    }

    /** Objects that must exist before the standby is copied from the primary. */
    static void createObjects(TestPostgres primary) {
        primary.createDatabase(DB);
        primary.execute(DB, """
                create extension pg_stat_statements;
                create table orders (id bigserial primary key, customer int not null, note text);
                insert into orders (customer, note) select g % 1000, repeat('x', 80) from generate_series(1, 30000) g;
                delete from orders where id % 2 = 0;
                create index orders_customer on orders (customer);
                create index orders_customer_dup on orders (customer);
                analyze orders;
                create table legacy (id int4 not null);
                create sequence legacy_id_seq as bigint owned by legacy.id;
                select setval('legacy_id_seq', 2000000000);
                create table dupes (v int);
                insert into dupes values (1), (1);
                create function add_one(i int) returns int language plpgsql as $$ begin return i + 1; end $$;
                select add_one(1);
                select count(*) from orders where customer = 7;
                select pg_create_physical_replication_slot('matrix_physical', true);
                create role pgharvest_monitor login;
                grant pg_monitor to pgharvest_monitor;
                grant select on all tables in schema public to pgharvest_monitor;
                grant select on all sequences in schema public to pgharvest_monitor;
                """);
        try {
            primary.execute(DB, "create unique index concurrently dupes_v on dupes (v)");
            throw new IllegalStateException("creating a unique index over duplicates should have failed");
        } catch (IllegalStateException e) {
            if (!(e.getCause() instanceof SQLException)) {
                throw e;
            }
            // expected: the failed CREATE INDEX CONCURRENTLY leaves the invalid index dupes_v behind
        }
    }

    /** A logical replication from {@link #DB} into {@link #SUBSCRIBER_DB} of the same instance. */
    static void createSubscription(TestPostgres primary) {
        primary.execute(DB, """
                create table pub_items (id int primary key, v text);
                insert into pub_items select g, 'item' from generate_series(1, 10) g;
                create publication matrix_pub for table pub_items;
                """);
        // in a transaction of its own: a slot cannot be created by a transaction that wrote
        primary.execute(DB, "select pg_create_logical_replication_slot('matrix_sub', 'pgoutput')");
        primary.createDatabase(SUBSCRIBER_DB);
        primary.execute(SUBSCRIBER_DB, "create table pub_items (id int primary key, v text)");
        // Same instance: the slot must exist beforehand (create_slot = false), see CREATE SUBSCRIPTION.
        primary.execute(SUBSCRIBER_DB, "create subscription matrix_sub connection 'host=" + primary.host()
                + " port=" + primary.port() + " user=" + TestPostgres.SUPERUSER + " dbname=" + DB
                + "' publication matrix_pub with (create_slot = false, slot_name = 'matrix_sub')");
    }

    /** Waits until the statistics the fixture produced are visible (they are flushed asynchronously). */
    static void awaitStatistics(TestPostgres server) {
        await(server, "select count(*) > 0 from pg_stat_user_functions", "function statistics");
    }

    static void await(TestPostgres server, String condition, String what) {
        long deadline = System.nanoTime() + AWAIT.toNanos();
        while (!"true".equals(server.queryString(DB, "select (" + condition + ")::text"))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for " + what + " on " + server);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * Live sessions on the primary: a prepared transaction, and a lock chain in which session C
     * waits for B, which waits for A (A waits for nothing: the root). Closing ends them all.
     */
    static final class Sessions implements AutoCloseable {

        final int rootPid;
        final int middlePid;
        final int tailPid;
        private final TestPostgres primary;
        private final List<Connection> connections = new ArrayList<>();
        private final ExecutorService waiters = Executors.newVirtualThreadPerTaskExecutor();

        Sessions(TestPostgres primary) throws SQLException {
            this.primary = primary;
            try {
                Connection prepared = open();
                run(prepared, "insert into dupes values (2)");
                run(prepared, "prepare transaction 'matrix_px'");
                Connection root = open();
                run(root, "update orders set note = 'root' where id = 1");
                Connection middle = open();
                run(middle, "update orders set note = 'middle' where id = 3");
                Connection tail = open();
                rootPid = pid(root);
                middlePid = pid(middle);
                tailPid = pid(tail);
                waiters.submit(() -> run(middle, "update orders set note = 'middle' where id = 1"));
                waiters.submit(() -> run(tail, "update orders set note = 'tail' where id = 3"));
                await(primary, "select count(*) = 2 from pg_stat_activity where wait_event_type = 'Lock' and pid in ("
                        + middlePid + ", " + tailPid + ")", "two sessions waiting for locks");
            } catch (SQLException | RuntimeException e) {
                close();
                throw e;
            }
        }

        private Connection open() throws SQLException {
            Connection connection = primary.connect(DB);
            connections.add(connection);
            connection.setAutoCommit(false);
            return connection;
        }

        private static Void run(Connection connection, String sql) throws SQLException {
            try (Statement statement = connection.createStatement()) {
                statement.execute(sql);
            }
            return null;
        }

        private static int pid(Connection connection) throws SQLException {
            try (Statement statement = connection.createStatement();
                 var rows = statement.executeQuery("select pg_backend_pid()")) {
                rows.next();
                return rows.getInt(1);
            }
        }

        /** Ends the sessions server-side first: a client thread blocked in a query would hold up close(). */
        @Override
        public void close() {
            primary.execute(DB, "select pg_terminate_backend(pid) from pg_stat_activity"
                    + " where datname = '" + DB + "' and pid <> pg_backend_pid() and backend_type = 'client backend'");
            for (Connection connection : connections) {
                try {
                    connection.close();
                } catch (SQLException e) {
                    // already terminated by the server
                }
            }
            waiters.shutdownNow();
            try {
                primary.execute(DB, "rollback prepared 'matrix_px'");
            } catch (IllegalStateException e) {
                // not prepared: setting up the sessions failed early
            }
        }
    }
}
