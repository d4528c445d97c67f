package io.pgharvest.endpoint;

import io.pgharvest.model.MetricRules;
import io.pgharvest.model.SourceKind;
import java.util.Properties;

/**
 * The wire dialect of a kind of endpoint: what travels in the startup packet and how the
 * server describes itself. The one place that maps a {@link SourceKind} to connection rules.
 */
public enum EndpointProtocol {

    /** A PostgreSQL server: pgjdbc, session settings in the startup packet, extended protocol. */
    POSTGRES(null, -1, "a PostgreSQL server") {
        @Override
        void configure(Properties props, SessionSettings settings) {
            // Travels in the startup packet: no extra round trip for SETs.
            String options = "-c default_transaction_read_only=on"
                    + " -c lock_timeout=" + settings.lockTimeout().toMillis()
                    + " -c statement_timeout=" + settings.defaultStatementTimeout().toMillis();
            String existing = props.getProperty("options");
            props.setProperty("options", existing == null || existing.isBlank() ? options : existing + " " + options);
            props.setProperty("assumeMinServerVersion", "10");
        }
    },

    /**
     * pgbouncer's admin console (database {@code pgbouncer}): {@link ConsoleClient}, because it
     * refuses startup parameters it does not track and pgjdbc always sends some.
     */
    PGBOUNCER("show version", MetricRules.PGBOUNCER_SQL_KEY, "pgbouncer's admin console (database pgbouncer, user in admin_users or"
            + " stats_users)"),

    /** pgpool: its SHOW commands through {@link ConsoleClient}, like pgbouncer's console. */
    PGPOOL("show pool_version", MetricRules.PGPOOL_SQL_KEY, "pgpool-II");

    private final String versionCommand;
    private final int sqlKey;
    private final String description;

    EndpointProtocol(String versionCommand, int sqlKey, String description) {
        this.versionCommand = versionCommand;
        this.sqlKey = sqlKey;
        this.description = description;
    }

    /**
     * The key of a metric's {@code sqls} written for this kind of endpoint, pgwatch's convention
     * ({@code 0} pgbouncer, {@code 3} pgpool). PostgreSQL servers pick by their major version.
     */
    public int sqlKey() {
        if (isPostgres()) {
            throw new IllegalStateException("PostgreSQL servers choose SQL by their major version");
        }
        return sqlKey;
    }

    /** The protocol spoken by endpoints of {@code kind}. */
    public static EndpointProtocol of(SourceKind kind) {
        return switch (kind) {
            // A Patroni source's members are PostgreSQL servers; the source itself opens no session.
            case POSTGRES, POSTGRES_CONTINUOUS_DISCOVERY, PATRONI -> POSTGRES;
            case PGBOUNCER -> PGBOUNCER;
            case PGPOOL -> PGPOOL;
        };
    }

    /** Whether the endpoint is a PostgreSQL server (catalogs, version, recovery state, prepared statements). */
    public boolean isPostgres() {
        return versionCommand == null;
    }

    /** What an endpoint of this kind is, for error messages. */
    String description() {
        return description;
    }

    /** The command that makes a console name its version; null for PostgreSQL. */
    String versionCommand() {
        return versionCommand;
    }

    /** Adds this protocol's pgjdbc startup properties; only PostgreSQL servers are reached with pgjdbc. */
    void configure(Properties props, SessionSettings settings) {
        throw new IllegalArgumentException(name() + " endpoints are not reached with pgjdbc; use openEndpoint");
    }
}
