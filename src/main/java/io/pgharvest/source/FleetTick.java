package io.pgharvest.source;

import java.time.Duration;
import java.time.Instant;

/**
 * A source whose only change since the index a client holds is a newer tick, or the same last error
 * again (a failing source's retry): its name and the three fields that move so, in the changes form
 * of {@code GET /api/v1/status} (a fifth of an entry or less).
 */
public record FleetTick(String name, Instant lastTickStart, Duration lastTickDuration, Instant lastErrorAt) {

    static FleetTick of(FleetEntry entry) {
        return new FleetTick(entry.name(), entry.lastTickStart(), entry.lastTickDuration(), entry.lastErrorAt());
    }
}
