package io.pgharvest.kind.postgres;

import java.sql.SQLException;

/**
 * The pipeline returned a different number of results than statements were sent: a metric's SQL
 * held more than one statement, so no result can be attributed. {@link QueryPipeline} refuses the
 * round trip with it; the reaper then runs its metrics one by one.
 */
final class PipelineShapeException extends SQLException {
    PipelineShapeException(int expected, int actual) {
        super("pipeline returned " + actual + " results for " + expected
                + " statements; a metric's SQL probably holds more than one statement");
    }
}
