package io.pgharvest.history.prometheus;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Statements for pg_stat_statements to count until {@link #close()}: a loop of four statements of
 * different cost, and once, {@link #BURST_AFTER} in, a burst of {@link #BURST} statements of distinct
 * shape (one to {@value #BURST} columns), more than a server keeping 100 entries holds, so it evicts
 * some and the collector marks that interval approximate.
 */
final class StatementLoad implements AutoCloseable {

    static final int BURST = 150;
    static final Duration BURST_AFTER = Duration.ofSeconds(20);

    private final String url;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;
    private volatile SQLException failure;

    private StatementLoad(String url) {
        this.url = url;
        this.thread = Thread.ofVirtual().name("statement-load").start(this::run);
    }

    static StatementLoad start(String jdbcUrl) {
        return new StatementLoad(jdbcUrl);
    }

    private void run() {
        long burstAt = System.nanoTime() + BURST_AFTER.toNanos();
        boolean burst = false;
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            for (int i = 0; running.get(); i++) {
                s.execute("select count(*) from generate_series(1, " + (1000 + i % 100) + ")");
                s.execute("select sum(g) from generate_series(1, 5000) g where g % 7 = " + i % 7);
                s.execute("select pg_sleep(0.02)");
                s.execute("select md5(g::text) from generate_series(1, 20) g");
                if (!burst && System.nanoTime() > burstAt) {
                    burst = true;
                    var columns = new StringBuilder("1");
                    for (int n = 0; n < BURST; n++) {
                        s.execute("select " + columns);
                        columns.append(", 1");
                    }
                }
                Thread.sleep(50);
            }
        } catch (SQLException e) {
            failure = e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the loop; a statement that failed fails the test here. */
    @Override
    public void close() throws InterruptedException, SQLException {
        running.set(false);
        thread.join(Duration.ofSeconds(30));
        if (failure != null) {
            throw failure;
        }
    }
}
