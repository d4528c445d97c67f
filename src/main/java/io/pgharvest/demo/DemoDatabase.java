package io.pgharvest.demo;

import io.pgharvest.embedded.EmbeddedPostgres;
import io.pgharvest.model.Preset;
import io.pgharvest.model.Source;
import io.pgharvest.sink.SinkDispatcher;
import io.pgharvest.store.ConfigStore;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The demo profile's monitored server: an embedded PostgreSQL started with pgharvest and
 * registered as source {@value #SOURCE}, collecting the {@value #PRESET} preset at a demo pace,
 * so that a newcomer sees measurements within a minute without installing anything.
 *
 * <p>Lifecycle: starts after the sinks and before the reapers (so the source can be reached
 * from the first tick) and stops after the reapers; the server and its data are removed on stop,
 * and so is the source, which would otherwise point at a port nobody listens on.
 */
final class DemoDatabase implements SmartLifecycle {

    static final String SOURCE = "demo";
    static final String DATABASE = "demo";
    static final String PRESET = "basic";
    /** Every metric of the preset at this interval: quick to show, harmless on a demo server. */
    static final int DEMO_INTERVAL_SECONDS = 10;
    /** Between the sinks (started first) and the web server and reapers (started later). */
    static final int PHASE = SinkDispatcher.PHASE + 1024;
    private static final Logger log = LoggerFactory.getLogger(DemoDatabase.class);

    private final ConfigStore store;
    private final ReentrantLock lifecycle = new ReentrantLock();
    private EmbeddedPostgres server;
    private DemoWorkload workload;

    DemoDatabase(ConfigStore store) {
        this.store = store;
    }

    @Override
    public void start() {
        lifecycle.lock();
        try {
            if (server != null) {
                return;
            }
            log.info("Demo profile: starting an embedded PostgreSQL (first start unpacks it, a few seconds)");
            EmbeddedPostgres started = EmbeddedPostgres.launch(Map.of("shared_preload_libraries", "pg_stat_statements"));
            try {
                String admin = "postgresql://postgres@" + started.host() + ":" + started.port() + "/postgres";
                String demo = "postgresql://postgres@" + started.host() + ":" + started.port() + "/" + DATABASE;
                DemoWorkload traffic = DemoWorkload.start(admin, demo);
                store.putSource(demoSource(demo));
                server = started;
                workload = traffic;
            } catch (RuntimeException e) {
                started.close();
                throw e;
            }
            log.info("Demo profile: source '{}' collects the '{}' preset every {} s from PostgreSQL on port {}"
                    + " (local connections need no password: do not run the demo on a shared host)",
                    SOURCE, PRESET, DEMO_INTERVAL_SECONDS, server.port());
        } finally {
            lifecycle.unlock();
        }
    }

    private Source demoSource(String connStr) {
        Preset preset = store.snapshot().presets().get(PRESET);
        var metrics = new LinkedHashMap<String, Integer>();
        preset.metrics().keySet().forEach(metric -> metrics.put(metric, DEMO_INTERVAL_SECONDS));
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
