package io.pgharvest.testsupport;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;

/**
 * A workload for the query insights views (the dashboard checks): on table {@code items} of one
 * database, two virtual threads until {@link #close()}: reads and updates in a loop with a
 * {@code pg_sleep(0.3)} between them (wait event Timeout/PgSleep), and lock cycles in which one
 * session holds row 1 for two seconds while another updates it (wait event Lock/transactionid, the
 * holder's pid in pg_blocking_pids), then lets it go, so the waiting update also finishes and is
 * counted by pg_stat_statements.
 */
public final class InsightsWorkload implements AutoCloseable {

    /** The statement the lock cycle makes wait (and the loop runs), as pg_stat_statements normalizes it. */
    public static final String LOCKED_UPDATE = "update items set n = n + $1 where id = $2";
    /** The read of the loop (a plain SELECT, so it can have a generic plan), normalized. */
    public static final String READ = "select sum(n) from items where id between $1 and $2";
    /** The loop's sleep, normalized (a SELECT too). */
    public static final String SLEEP = "select pg_sleep($1)";

    private final TestPostgres pg;
    private final String database;
    private final String url;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicReference<String> holderPid = new AtomicReference<>();
    private final Thread statements;
    private final Thread locks;

    private InsightsWorkload(TestPostgres pg, String database, String user) {
        this.pg = pg;
        this.database = database;
        this.url = pg.jdbcUrl(database).replace("user=" + TestPostgres.SUPERUSER, "user=" + user);
        this.statements = Thread.ofVirtual().name("insights-statements").start(this::statements);
        this.locks = Thread.ofVirtual().name("insights-locks").start(this::lockCycles);
    }

    /**
     * Creates pg_stat_statements and table {@code items} in {@code database} (the server must preload
     * pg_stat_statements), lets {@code user} (created when missing, a login role without privileges
     * but on the table) use them, and starts the workload as that user.
     */
    public static InsightsWorkload start(TestPostgres pg, String database, String user) {
        pg.execute("postgres", "do $$ begin if not exists (select from pg_roles where rolname = '" + user
                + "') then create role " + user + " login; end if; end $$");
        pg.execute(database, """
                create extension if not exists pg_stat_statements;
                create table if not exists items (id int primary key, n int8 not null default 0);
                insert into items select g, 0 from generate_series(1, 10000) g on conflict do nothing;
                grant select, update on items to %s;
                """.formatted(user));
        return new InsightsWorkload(pg, database, user);
    }

    /** The pid of the session that holds the lock the update waits for. */
    public String holderPid() {
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> holderPid.get() != null);
        return holderPid.get();
    }

    /** The query ID of {@link #LOCKED_UPDATE} in this database, once the update finished at least once. */
    public String lockedUpdateQueryId() {
        return queryId(LOCKED_UPDATE);
    }

    /** The query ID of {@link #READ} in this database, once the read finished at least once. */
    public String readQueryId() {
        return queryId(READ);
    }

    /** The query ID of {@link #SLEEP} in this database, once the sleep finished at least once. */
    public String sleepQueryId() {
        return queryId(SLEEP);
    }

    private String queryId(String normalized) {
        String sql = "select coalesce(max(queryid)::text, '') from pg_stat_statements where query = '"
                + normalized + "' and dbid = (select oid from pg_database where datname = current_database())";
        Awaitility.await().atMost(Duration.ofMinutes(1)).until(() -> !pg.queryString(database, sql).isEmpty());
        return pg.queryString(database, sql);
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        statements.join(Duration.ofSeconds(30));
        locks.join(Duration.ofSeconds(30));
    }

    private void statements() {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            for (int i = 0; running.get(); i++) {
                int id = 2 + i % 9_000;
                s.execute("select sum(n) from items where id between " + id + " and " + (id + 500));
                s.execute("update items set n = n + 1 where id = " + id);
                s.execute("select pg_sleep(0.3)");
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void lockCycles() {
        try (Connection holder = DriverManager.getConnection(url); Connection waiter = DriverManager.getConnection(url);
                Statement hold = holder.createStatement()) {
            try (ResultSet rs = hold.executeQuery("select pg_backend_pid()")) {
                rs.next();
                holderPid.set(rs.getString(1));
            }
            holder.setAutoCommit(false);
            while (running.get()) {
                hold.executeQuery("select n from items where id = 1 for update").close();
                Thread update = Thread.ofVirtual().start(() -> {
                    try (Statement s = waiter.createStatement()) {
                        s.execute("update items set n = n + 1 where id = 1");
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                });
                Thread.sleep(2_000);
                holder.commit();
                update.join();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
