package io.pgharvest.nativemetric;

import java.time.Duration;
import java.time.Instant;

/**
 * What a native metric may know and use of the source it collects, for one tick.
 *
 * @param source the source's name
 * @param database the database the source's session reads ({@code current_database()}), null for a
 *     peer that is not PostgreSQL
 * @param majorVersion the server's PostgreSQL major version (0 when not PostgreSQL)
 * @param serverAddress {@code inet_server_addr():inet_server_port()} of the server connected to,
 *     empty host for a Unix socket; null when not PostgreSQL
 * @param onThisHost whether the server runs on the machine pgharvest runs on ({@link ServerLocality})
 * @param sql reads from the source's session
 * @param interval the metric's interval for this source
 * @param now the tick's start
 * @param restApi the REST API address discovery found for the source (a Patroni member's
 *     {@code api_url}); null when there is none
 * @param plans asks the source's server for generic plans
 * @param shelf what the source's native metrics share, for as long as the source is collected
 * @param instanceShelf what this metric's collectors on the other databases of the source's
 *     PostgreSQL instance share with this one; {@link InstanceShelf#NONE} when the metric is
 *     collected on this database of the instance only, or the instance is not known
 * @param keepQueryLiterals the source's {@code keepQueryLiterals}: texts a native metric reads
 *     elsewhere than in {@code query} columns (the server log's messages and DETAIL lines) keep
 *     their literals only when it is set
 */
public record NativeTarget(String source, String database, int majorVersion, String serverAddress,
        boolean onThisHost, SqlReader sql, Duration interval, Instant now, String restApi, GenericPlans plans,
        SourceShelf shelf, InstanceShelf instanceShelf, boolean keepQueryLiterals) {

    /** A target of a source whose literals are redacted (the default). */
    public NativeTarget(String source, String database, int majorVersion, String serverAddress,
            boolean onThisHost, SqlReader sql, Duration interval, Instant now, String restApi, GenericPlans plans,
            SourceShelf shelf, InstanceShelf instanceShelf) {
        this(source, database, majorVersion, serverAddress, onThisHost, sql, interval, now, restApi, plans, shelf,
                instanceShelf, false);
    }

    /** A target whose metric shares nothing with the instance's other databases. */
    public NativeTarget(String source, String database, int majorVersion, String serverAddress,
            boolean onThisHost, SqlReader sql, Duration interval, Instant now, String restApi, GenericPlans plans,
            SourceShelf shelf) {
        this(source, database, majorVersion, serverAddress, onThisHost, sql, interval, now, restApi, plans, shelf,
                InstanceShelf.NONE);
    }

    /** A target that cannot plan and shares nothing with other metrics. */
    public NativeTarget(String source, String database, int majorVersion, String serverAddress,
            boolean onThisHost, SqlReader sql, Duration interval, Instant now, String restApi) {
        this(source, database, majorVersion, serverAddress, onThisHost, sql, interval, now, restApi,
                GenericPlans.NONE, new SourceShelf());
    }
}
