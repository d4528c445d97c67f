package io.pgharvest.sink.jsonfile;

import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkFactory;
import io.pgharvest.sink.SinkProperties;
import io.pgharvest.sink.SinkType;
import java.time.Clock;
import org.springframework.stereotype.Component;

/** Builds {@code jsonfile} sinks. */
@Component
final class JsonLinesSinkFactory implements SinkFactory {

    @Override
    public SinkType type() {
        return SinkType.JSONFILE;
    }

    @Override
    public Sink create(String property, SinkProperties settings, MetricCatalog catalog, Clock clock) {
        return JsonLinesSink.create(settings);
    }
}
