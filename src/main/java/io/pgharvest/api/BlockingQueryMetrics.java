package io.pgharvest.api;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.ConfigStore;
import java.util.Locale;
import org.springframework.stereotype.Component;

/** {@code pgharvest.api.blocking.waiters}: requests parked on each store notifier. */
@Component
class BlockingQueryMetrics implements MeterBinder {

    private final ConfigStore store;

    BlockingQueryMetrics(ConfigStore store) {
        this.store = store;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (StoreTable table : StoreTable.values()) {
            Gauge.builder("pgharvest.api.blocking.waiters", store, s -> s.changes(table).waiters())
                    .tag("table", table.name().toLowerCase(Locale.ROOT))
                    .description("Blocking queries parked waiting for a change")
                    .register(registry);
        }
        Gauge.builder("pgharvest.api.blocking.waiters", store, s -> s.changes().waiters())
                .tag("table", "store")
                .description("Blocking queries parked waiting for a change")
                .register(registry);
    }
}
