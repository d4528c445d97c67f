package io.pgharvest.bench;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.pgharvest.PgharvestApplication;
import io.pgharvest.sink.Measurement;
import io.pgharvest.sink.MeasurementPublisher;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.support.GenericApplicationContext;

/**
 * pgharvest with a publisher that only counts (meter {@code pgharvest.sink.written}, sink
 * "counting"), for {@code bench.launch=classpath}: measures the engine without any sink, and let
 * the harness be built before the sinks existed.
 */
public final class CountingPublisherApplication {

    private CountingPublisherApplication() {
    }

    public static void main(String[] args) {
        new SpringApplicationBuilder(PgharvestApplication.class)
                .initializers(context -> ((GenericApplicationContext) context).registerBean(MeasurementPublisher.class,
                        () -> new CountingPublisher(context.getBean(MeterRegistry.class))))
                .run(args);
    }

    private static final class CountingPublisher implements MeasurementPublisher {
        private final AtomicLong published = new AtomicLong();

        CountingPublisher(MeterRegistry registry) {
            FunctionCounter.builder("pgharvest.sink.written", published, AtomicLong::get)
                    .tag("sink", "counting").register(registry);
        }

        @Override
        public void publish(List<Measurement> measurements) {
            published.addAndGet(measurements.size());
        }
    }
}
