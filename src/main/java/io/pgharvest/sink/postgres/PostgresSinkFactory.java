package io.pgharvest.sink.postgres;

import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkFactory;
import io.pgharvest.sink.SinkProperties;
import io.pgharvest.sink.SinkType;
import java.time.Clock;
import org.springframework.stereotype.Component;

/** Builds {@code postgres} sinks; their connection pools share one housekeeping thread. */
@Component
final class PostgresSinkFactory implements SinkFactory, AutoCloseable {

    private final SinkPoolThreads threads = new SinkPoolThreads();

    @Override
    public SinkType type() {
        return SinkType.POSTGRES;
    }

    @Override
    public Sink create(String property, SinkProperties settings, MetricCatalog catalog, Clock clock) {
        return PostgresSink.create(property, settings, threads, catalog, clock);
    }

    /** Called by Spring after the sinks (created later, closed earlier) are closed. */
    @Override
    public void close() {
        threads.close();
    }
}
