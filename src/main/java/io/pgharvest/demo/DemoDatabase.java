package io.pgharvest.demo;

import io.pgharvest.embedded.EmbeddedPostgres;
import io.pgharvest.embedded.ParentWatchdog;
import io.pgharvest.model.Preset;
import io.pgharvest.model.Source;
import io.pgharvest.sink.dispatch.SinkDispatcher;
import io.pgharvest.store.ConfigStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The demo profile's monitored server: an embedded PostgreSQL started with pgharvest and
 * registered as source {@value #SOURCE}, collecting the {@value #PRESET} preset and the query insights
 * metrics at a demo pace,
 * so that a newcomer sees measurements within a minute without installing anything.
 *
 * <p>Lifecycle: starts before the sinks (one of them writes the demo's history here, see
 * {@link DemoHistory}) and the reapers (so the source can be reached from the first tick), and
 * stops after them. The cluster is kept between runs (its history is the point); the source is
 * removed on stop, since it would otherwise point at a port nobody listens on.
 *
 * <p>Safety: the superuser gets a generated password and every connection (TCP and socket) must
 * use it (scram-sha-256), so another local user cannot log in. A {@link ParentWatchdog} stops the
 * server when the JVM dies, even by SIGKILL (the kept cluster recovers at the next start); and should both be killed at once, the marker file
 * {@value #MARKER_FILE} in the data directory lets the next start stop the stale server and
 * remove its files.
 */
final class DemoDatabase implements SmartLifecycle {

    static final String SOURCE = "demo";
    static final String DATABASE = "demo";
    static final String PRESET = "basic";
    /** Every metric of the preset at this interval: quick to show, harmless on a demo server. */
    static final int DEMO_INTERVAL_SECONDS = 10;
    /**
     * Before the sinks (one writes the demo's history into this server, DemoHistory) and the web
     * server and reapers; stopped after them, so the sinks' last batches reach it.
     */
    static final int PHASE = SinkDispatcher.PHASE - 1024;
    static final String MARKER_FILE = "demo-postgres";
    static final String HOST = "127.0.0.1";
    private static final Logger log = LoggerFactory.getLogger(DemoDatabase.class);

    private final ConfigStore store;
    private final Path marker;
    private final Path dataDir;
    private final int port;
    private final ReentrantLock lifecycle = new ReentrantLock();
    private EmbeddedPostgres server;
    private ParentWatchdog watchdog;
    private DemoWorkload workload;

    DemoDatabase(ConfigStore store, Path dataDir, int port) {
        this.store = store;
        this.dataDir = dataDir;
        this.marker = dataDir.resolve(MARKER_FILE);
        this.port = port;
    }

    @Override
    public void start() {
        lifecycle.lock();
        try {
            if (server != null) {
                return;
            }
            StaleDemoServer.removeIfAny(marker);
            Path cluster = DemoHistory.clusterDir(dataDir);
            log.info("Demo profile: starting the embedded PostgreSQL kept in {} (the first start unpacks it, a few"
                    + " seconds)", cluster);
            EmbeddedPostgres started = EmbeddedPostgres.launchKept(cluster, port,
                    Map.of("shared_preload_libraries", "pg_stat_statements"));
            ParentWatchdog guard = null;
            try {
                guard = started.watchParent();
                StaleDemoServer.record(marker, started);
                String password = DemoHistory.password(dataDir);
                DemoPassword.require(started, password);
                String admin = "postgresql://postgres:" + password + "@" + started.host() + ":" + started.port()
                        + "/postgres";
                String demo = "postgresql://postgres:" + password + "@" + started.host() + ":" + started.port() + "/"
                        + DATABASE;
                String monitor = "postgresql://" + DemoPassword.MONITOR_ROLE + ":" + password + "@" + started.host()
                        + ":" + started.port() + "/" + DATABASE;
                DemoWorkload traffic = DemoWorkload.start(admin, demo);
                store.putSource(demoSource(monitor));
                server = started;
                watchdog = guard;
                workload = traffic;
            } catch (RuntimeException e) {
                started.close();
                if (guard != null) {
                    guard.close();
                }
                throw e;
            }
            log.info("Demo profile: source '{}' collects the '{}' preset every {} s from PostgreSQL on port {}"
                    + " (as role " + DemoPassword.MONITOR_ROLE + " with pg_monitor and a generated password,"
                    + " stopped with pgharvest)",
                    SOURCE, PRESET, DEMO_INTERVAL_SECONDS, server.port());
        } finally {
            lifecycle.unlock();
        }
    }

    private Source demoSource(String connStr) {
        Preset preset = store.snapshot().presets().get(PRESET);
        var metrics = new LinkedHashMap<String, Integer>();
        preset.metrics().keySet().forEach(metric -> metrics.put(metric, DEMO_INTERVAL_SECONDS));
        // The queries view's data (docs/query-insights.md): statements' cost at the demo's pace, sessions
        // sampled every second (a short statement is seen), texts once a minute and with query_stats for
        // statements new to its top.
        metrics.put("query_stats", DEMO_INTERVAL_SECONDS);
        metrics.put("active_sessions", 1);
        metrics.put("query_texts", 60);
        return new Source(SOURCE, connStr, null, null, true, PRESET, metrics, null, null,
                Map.of("env", "demo"), false, null, null);
    }

    @Override
    public void stop() {
        lifecycle.lock();
        try {
            if (server == null) {
                return;
            }
            if (store.snapshot().sources().containsKey(SOURCE)) {
                store.deleteSource(SOURCE);
            }
            workload.stop(Duration.ofSeconds(5));
            server.close();
            watchdog.close();
            StaleDemoServer.forget(marker);
            server = null;
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public boolean isRunning() {
        lifecycle.lock();
        try {
            return server != null;
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
