package io.pgharvest.endpoint;

import io.pgharvest.model.SourceKind;
import java.util.Properties;

/**
 * The wire dialect of a kind of endpoint: what travels in the startup packet and how the
 * server describes itself. The one place that maps a {@link SourceKind} to connection rules.
 */
public enum EndpointProtocol {

    /** A PostgreSQL server: session settings in the startup packet, extended protocol. */
    POSTGRES(true) {
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
     * An admin console (pgbouncer, pgpool): it rejects unknown startup options and the extended
     * protocol, so sessions get the simple protocol and no options.
     */
    CONSOLE(false) {
        @Override
        void configure(Properties props, SessionSettings settings) {
            props.setProperty("preferQueryMode", "simple");
        }
    };

    private final boolean postgres;

    EndpointProtocol(boolean postgres) {
        this.postgres = postgres;
    }

    /** The protocol spoken by endpoints of {@code kind}. */
    public static EndpointProtocol of(SourceKind kind) {
        return switch (kind) {
            // A Patroni source's members are PostgreSQL servers; the source itself opens no session.
            case POSTGRES, POSTGRES_CONTINUOUS_DISCOVERY, PATRONI -> POSTGRES;
            case PGBOUNCER, PGPOOL -> CONSOLE;
        };
    }

    /** Whether the endpoint is a PostgreSQL server (catalogs, version, recovery state, prepared statements). */
    public boolean isPostgres() {
        return postgres;
    }

    /** Adds this protocol's startup properties. */
    abstract void configure(Properties props, SessionSettings settings);
}
