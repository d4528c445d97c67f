package io.pgharvest.source;

import java.time.Duration;
import java.time.Instant;

/**
 * A source whose only change since the index a client holds is a newer tick: its name and the
 * two fields that moved, in the changes form of {@code GET /api/v1/status} (a fifth of an entry).
 */
public record FleetTick(String name, Instant lastTickStart, Duration lastTickDuration) {

    static FleetTick of(FleetEntry entry) {
        return new FleetTick(entry.name(), entry.lastTickStart(), entry.lastTickDuration());
    }
}
