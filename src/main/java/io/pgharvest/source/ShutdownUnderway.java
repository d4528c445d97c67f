package io.pgharvest.source;

import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ResponseStatusException;

/**
 * Whether this application is closing. While it closes, the engine takes its reapers down and
 * would report every source as merely configured, without its last tick; a status answer then
 * would leave a console showing the shutdown's picture as the collector's last word. From the
 * context's closed event on (published before any component stops), the status endpoints answer
 * 503 instead, so a console keeps what the running collector said and marks it stale.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE) // before the parked queries are woken (api.ParkedRequests)
final class ShutdownUnderway implements ApplicationListener<ContextClosedEvent> {

    private volatile boolean underway;

    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        underway = true;
    }

    /** Refuses a status answer with 503 once the application is closing. */
    void refuseStatusWhileClosing() {
        if (underway) {
            throw new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE,
                    "The collector is shutting down: the sources' status is known again when it runs");
        }
    }
}
