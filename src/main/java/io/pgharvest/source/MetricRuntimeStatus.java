package io.pgharvest.source;

import java.time.Instant;

/**
 * One metric of one source as the reaper sees it.
 *
 * @param lane {@code pipeline}, {@code solo} (isolated after a failure), {@code not-for-role}
 *     (node status does not match the server's role) or {@code no-sql} (no SQL for the server's
 *     version: reported here once, never attempted)
 */
public record MetricRuntimeStatus(String name, int intervalSeconds, String lane, Instant lastSuccess,
        String lastError, Instant lastErrorAt, Instant nextDue) {

    public static final String PIPELINE = "pipeline";
    public static final String SOLO = "solo";
    public static final String NOT_FOR_ROLE = "not-for-role";
    public static final String NO_SQL = "no-sql";
}
