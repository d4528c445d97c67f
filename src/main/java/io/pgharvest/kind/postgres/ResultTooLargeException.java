package io.pgharvest.kind.postgres;

import io.pgharvest.kind.ResultLimits;
import io.pgharvest.support.wire.ResultBytesBound;
import java.sql.SQLException;

/**
 * A metric's result was larger than pgharvest keeps (rows or bytes): the metric fails alone,
 * with an error naming the limit and its setting. Not a timeout, not a lost session. Raised by
 * {@link PartCollector} for a round trip's part and by every other reader of a session's results
 * through {@link #requireWhole}.
 */
final class ResultTooLargeException extends SQLException {
    private static final String PROGRAM_LIMIT_EXCEEDED = "54000";
    private final int part;
    private final String what;

    ResultTooLargeException(int part, String what, Throwable cause) {
        super("a metric returned " + what, PROGRAM_LIMIT_EXCEEDED, cause);
        this.part = part;
        this.what = what;
    }

    private ResultTooLargeException(String metric, String what, Throwable cause) {
        super((metric == null ? "a metric" : "metric " + metric) + " returned " + what
                + "; it is not collected until it returns less", PROGRAM_LIMIT_EXCEEDED, cause);
        this.part = -1;
        this.what = what;
    }

    /**
     * Throws when {@code bound} cut a result of the round trip since its {@link ResultBytesBound#watch}:
     * pgjdbc received that result whole but shorter, so the session is fine and the round trip's
     * other results are complete, but the cut one must not be delivered.
     */
    static void requireWhole(ResultBytesBound bound, ResultLimits limits) throws ResultTooLargeException {
        int cut = bound.cutResult();
        if (cut >= 0) {
            throw new ResultTooLargeException(cut, "more than " + limits.bytesText()
                    + " of rows (pgharvest.reaper.max-result-bytes)", null);
        }
    }

    int part() {
        return part;
    }

    /** The same failure, naming {@code metric}. */
    ResultTooLargeException of(String metric) {
        return new ResultTooLargeException(metric, what, getCause());
    }
}
