package io.pgharvest.serverlog;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import io.pgharvest.serverlog.event.LogCategory;
import io.pgharvest.store.LogPositions;
import java.util.List;

/**
 * One log insights metric ({@code log_autovacuum}, {@code log_errors} ...): the events of its
 * {@link LogCategory} read from the source's server log since its previous collection. All of a
 * source's log_* metrics share one reading of the log ({@link LogInsightsTail}).
 */
final class LogInsightMetric implements NativeMetric {

    private final LogCategory category;
    private final LogPositions positions;

    LogInsightMetric(LogCategory category, LogPositions positions) {
        this.category = category;
        this.positions = positions;
    }

    @Override
    public String name() {
        return category.metric();
    }

    @Override
    public Collector newCollector() {
        return this::collect;
    }

    private List<Measurement.Row> collect(NativeTarget target) throws Exception {
        LogInsightsTail tail = target.shelf().item(LogInsightsTail.class,
                () -> new LogInsightsTail(target.source(), positions, LogInsightsTail.READ_BUDGET));
        return tail.collect(category, target);
    }
}
