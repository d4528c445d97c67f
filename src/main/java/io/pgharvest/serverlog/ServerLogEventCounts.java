package io.pgharvest.serverlog;

import io.pgharvest.nativemetric.NativeMetric;
import org.springframework.stereotype.Component;

/**
 * pgwatch's {@code server_log_event_counts}: log records by severity since the source's previous
 * collection, from the server's csvlog or jsonlog files ({@link LogTail}).
 */
@Component
final class ServerLogEventCounts implements NativeMetric {

    @Override
    public String name() {
        return "server_log_event_counts";
    }

    @Override
    public Collector newCollector() {
        return new LogTail();
    }
}
