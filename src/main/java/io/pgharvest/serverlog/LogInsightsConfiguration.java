package io.pgharvest.serverlog;

import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.serverlog.event.LogCategory;
import io.pgharvest.store.LogPositions;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The log insights metrics, one per {@link LogCategory}, for the native metric registry. */
@Configuration(proxyBeanMethods = false)
class LogInsightsConfiguration {

    @Bean
    NativeMetric logAutovacuum(LogPositions positions) {
        return new LogInsightMetric(LogCategory.AUTOVACUUM, positions);
    }

    @Bean
    NativeMetric logCheckpoints(LogPositions positions) {
        return new LogInsightMetric(LogCategory.CHECKPOINTS, positions);
    }

    @Bean
    NativeMetric logLockWaits(LogPositions positions) {
        return new LogInsightMetric(LogCategory.LOCK_WAITS, positions);
    }

    @Bean
    NativeMetric logDeadlocks(LogPositions positions) {
        return new LogInsightMetric(LogCategory.DEADLOCKS, positions);
    }

    @Bean
    NativeMetric logTempFiles(LogPositions positions) {
        return new LogInsightMetric(LogCategory.TEMP_FILES, positions);
    }

    @Bean
    NativeMetric logErrors(LogPositions positions) {
        return new LogInsightMetric(LogCategory.ERRORS, positions);
    }

    @Bean
    NativeMetric logConnectionFailures(LogPositions positions) {
        return new LogInsightMetric(LogCategory.CONNECTION_FAILURES, positions);
    }

    @Bean
    NativeMetric logSlowStatements(LogPositions positions) {
        return new LogInsightMetric(LogCategory.SLOW_STATEMENTS, positions);
    }

    @Bean
    NativeMetric logPlans(LogPositions positions) {
        return new LogInsightMetric(LogCategory.PLANS, positions);
    }
}
