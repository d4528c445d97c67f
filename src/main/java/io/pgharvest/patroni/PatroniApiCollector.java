package io.pgharvest.patroni;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceKind;
import io.pgharvest.store.ConfigStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Collects the {@code patroni_*} metrics of every member of every enabled Patroni source from the
 * member's REST API ({@code /metrics}), every {@code pgharvest.patroni.api-metrics-interval}, on
 * one virtual thread for all of them. Measurements carry the member's source name, like its SQL
 * metrics. A member whose API fails is logged once per change of state and tried again next time.
 */
final class PatroniApiCollector implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PatroniApiCollector.class);
    /** Same phase as the reaper service: starts after the sinks, stops before them. */
    static final int PHASE = Integer.MAX_VALUE - 100;

    private final ConfigStore store;
    private final PatroniDiscoverer discoverer;
    private final PatroniApiMetrics api;
    private final MeasurementPublisher publisher;
    private final Duration interval;
    private final Clock clock;
    private final Map<String, String> failing = new ConcurrentHashMap<>();
    private volatile Thread thread;
    private volatile boolean running;

    PatroniApiCollector(ConfigStore store, PatroniDiscoverer discoverer, PatroniApiMetrics api,
            MeasurementPublisher publisher, Duration interval, Clock clock) {
        this.store = store;
        this.discoverer = discoverer;
        this.api = api;
        this.publisher = publisher;
        this.interval = interval;
        this.clock = clock;
    }

    @Override
    public void start() {
        if (interval.isZero() || running) {
            return;
        }
        running = true;
        thread = Thread.ofVirtual().name("patroni-api-metrics").start(this::run);
    }

    @Override
    public void stop() {
        running = false;
        Thread t = thread;
        thread = null;
        if (t != null) {
            t.interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    private void run() {
        // Fixed rate on the interval's grid, so readings line up across restarts and do not drift.
        long periodMillis = interval.toMillis();
        while (running) {
            try {
                collectOnce(clock.instant());
                long now = clock.millis();
                Thread.sleep(periodMillis - now % periodMillis);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.error("Patroni REST API collection failed; trying again next interval", e);
            }
        }
    }

    void collectOnce(Instant at) {
        Set<String> patroniSources = new HashSet<>();
        for (Source source : store.snapshot().sources().values()) {
            if (source.kind() != SourceKind.PATRONI || !source.enabled()) {
                continue;
            }
            patroniSources.add(source.name());
            for (PatroniDiscoverer.KnownMember member : discoverer.knownMembers(source.name())) {
                if (member.apiUrl() != null) {
                    scrape(member, at);
                }
            }
        }
        discoverer.retainOnly(patroniSources);
    }

    private void scrape(PatroniDiscoverer.KnownMember member, Instant at) {
        try {
            List<Measurement> measurements = api.scrape(member.apiUrl(), member.source(), member.tags(), at);
            publisher.publish(measurements);
            if (failing.remove(member.source()) != null) {
                log.info("Source {}: Patroni REST API answers again", member.source());
            }
        } catch (IOException | IllegalArgumentException e) {
            String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            if (!Objects.equals(failing.put(member.source(), String.valueOf(message)), String.valueOf(message))) {
                log.warn("Source {}: cannot read Patroni's REST API metrics: {}", member.source(), message);
            }
        }
    }
}
