package io.pgharvest.alert.evaluation;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.pgharvest.alert.AlertNotifications;
import io.pgharvest.alert.pack.BuiltInRules;
import io.pgharvest.alert.rule.MetricColumns;
import io.pgharvest.alert.rule.MetricLookup;
import io.pgharvest.alert.rule.RuleCompiler;
import io.pgharvest.alert.store.AlertRules;
import io.pgharvest.alert.store.AlertStorage;
import io.pgharvest.alert.store.FileAlertStorage;
import io.pgharvest.alert.store.HistoryNotifications;
import io.pgharvest.alert.store.PostgresAlertStorage;
import io.pgharvest.config.DataDirectory;
import io.pgharvest.model.SessionState;
import io.pgharvest.operations.selfmetrics.SelfSource;
import io.pgharvest.reaper.ReaperService;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.ItemOrigin;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.choice.StoreProperties;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Alerting's parts: its storage (beside the configuration store), the rules, the evaluator and
 * its feed, and the history. Every {@link AlertNotifications} bean hears every transition: the
 * history here, and whatever else registers one (the receivers' outbox is one bean more).
 */
@Configuration(proxyBeanMethods = false)
class AlertConfiguration {

    @Bean(destroyMethod = "close")
    AlertStorage alertStorage(StoreProperties store, DataDirectory dataDirectory, ConfigStore configStore) {
        // The configuration store first (the parameter is for the order only): its migrations
        // create the alert tables in its schema.
        return store.url() == null ? new FileAlertStorage(dataDirectory.path()) : PostgresAlertStorage.open(store.url());
    }

    @Bean
    AlertRules alertRules(AlertStorage storage, AlertProperties properties, ConfigStore store) {
        MetricColumns catalog = MetricColumns.builtIn();
        MetricLookup configured = new MetricLookup() {
            @Override
            public boolean exists(String metric) {
                return MetricColumns.isWrittenByPgharvest(metric) || store.snapshot().metrics().containsKey(metric);
            }

            @Override
            public Optional<Set<String>> columns(String metric) {
                boolean builtIn = MetricColumns.isWrittenByPgharvest(metric)
                        || store.origin(StoreTable.METRICS, metric).orElse(ItemOrigin.USER) == ItemOrigin.BUILT_IN;
                return builtIn ? catalog.of(metric) : Optional.empty();
            }
        };
        MetricLookup shipped = new MetricLookup() {
            @Override
            public boolean exists(String metric) {
                return true; // the pack's metrics are checked by AlertPackTest, natives of kinds included
            }

            @Override
            public Optional<Set<String>> columns(String metric) {
                return catalog.of(metric);
            }
        };
        return new AlertRules(storage, new RuleCompiler(properties.costLimit()), configured, shipped,
                BuiltInRules.load());
    }

    @Bean
    HistoryNotifications historyNotifications(AlertStorage storage) {
        return new HistoryNotifications(storage);
    }

    @Bean
    AlertEvaluator alertEvaluator(AlertRules rules, AlertStorage storage, ConfigStore store,
            ObjectProvider<ReaperService> reaperService, ObjectProvider<AlertNotifications> notifications,
            AlertProperties properties, SelfSource self) {
        // Looked up when first used: the reapers publish to the feed, which evaluates with this.
        // pgharvest's own state is always evaluated here: no other instance publishes it.
        return new AlertEvaluator(rules, name -> store.snapshot().sources().get(name),
                source -> source.equals(self.name()) || reaperService.getObject().status(source)
                        .map(status -> status.state() != SessionState.STOPPED).orElse(false),
                new AlertBook(storage), () -> notifications.orderedStream().toList(), Clock.systemUTC(),
                properties.round());
    }

    @Bean
    @ConditionalOnProperty(name = "pgharvest.alert.enabled", havingValue = "true", matchIfMissing = true)
    AlertFeed alertFeed(AlertEvaluator evaluator, AlertProperties properties, MeterRegistry meters) {
        var feed = new AlertFeed(evaluator, properties.round(), properties.queuedBatches());
        FunctionCounter.builder("pgharvest.alert.batches.dropped", feed, AlertFeed::droppedBatches)
                .description("Published batches alert evaluation dropped because its queue was full").register(meters);
        FunctionCounter.builder("pgharvest.alert.batches.evaluated", feed, AlertFeed::evaluatedBatches)
                .description("Published batches alert evaluation went through").register(meters);
        return feed;
    }

    /** Rules' tests against the last hour, from the recent window's points. */
    @Bean
    RuleReplay ruleReplay(io.pgharvest.window.RecordedPoints points, AlertEvaluator evaluator) {
        return new RuleReplay(points, evaluator, Clock.systemUTC());
    }

    @Bean
    AlertMeters alertMeters(AlertEvaluator evaluator, MeterRegistry meters) {
        return new AlertMeters(evaluator, meters);
    }
}
