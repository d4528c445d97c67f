package io.pgharvest.serverlog.event;

import io.pgharvest.model.Measurement;

/** One event of a category, as the row its metric delivers. */
public record LogEvent(LogCategory category, Measurement.Row row) {
}
