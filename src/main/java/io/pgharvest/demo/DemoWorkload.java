package io.pgharvest.demo;

import io.pgharvest.model.connection.ConnectionString;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A little traffic on the demo database (a write and a read every second) so that its
 * counters move and the demo shows more than zeros. One virtual thread; ends on {@link #stop}.
 */
final class DemoWorkload {

    private static final Logger log = LoggerFactory.getLogger(DemoWorkload.class);
    private static final Duration PAUSE = Duration.ofSeconds(1);
    private static final String DUPLICATE_DATABASE = "42P04";

    private final String demoUrl;
    private volatile boolean stopped;
    private Thread thread;

    private DemoWorkload(String demoUrl) {
        this.demoUrl = demoUrl;
    }

    /** Creates the demo database (unless the kept cluster has it) and starts the traffic. */
    static DemoWorkload start(String adminConnStr, String demoConnStr) {
        try (Connection admin = connect(adminConnStr);
                Statement st = admin.createStatement()) {
            st.execute("create database " + DemoDatabase.DATABASE);
        } catch (SQLException e) {
            if (!DUPLICATE_DATABASE.equals(e.getSQLState())) { // else the kept cluster of an earlier run has it
                throw new IllegalStateException("Demo profile: cannot create the demo database: " + e.getMessage(), e);
            }
        }
        // Before the source is registered, so the query insights metrics find the extension on their first read.
        try (Connection demo = connect(demoConnStr);
                Statement st = demo.createStatement()) {
            st.execute("create extension if not exists pg_stat_statements");
        } catch (SQLException e) {
            throw new IllegalStateException("Demo profile: cannot create pg_stat_statements: " + e.getMessage(), e);
        }
        var workload = new DemoWorkload(demoConnStr);
        workload.thread = Thread.ofVirtual().name("demo-workload").start(workload::run);
        return workload;
    }

    void stop(Duration timeout) {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        try (Connection c = connect(demoUrl); Statement st = c.createStatement()) {
            st.execute("create table if not exists orders(id bigserial primary key, amount numeric, at timestamptz default now())");
            while (!stopped) {
                st.execute("insert into orders(amount) select random() * 100 from generate_series(1, 10)");
                st.execute("delete from orders where at < now() - interval '10 minutes'");
                st.executeQuery("select count(*), sum(amount) from orders").close();
                Thread.sleep(PAUSE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (SQLException e) {
            if (!stopped) {
                log.warn("Demo workload stopped: {}", e.getMessage());
            }
        }
    }

    private static Connection connect(String connStr) throws SQLException {
        var parsed = ConnectionString.parse(connStr);
        return DriverManager.getConnection(parsed.jdbcUrl(), parsed.jdbcProperties());
    }
}
