package io.pgharvest.serverlog.event;

import io.pgharvest.serverlog.entry.LogEntry;
import java.util.Optional;

/**
 * Connections the server refused (FATAL): wrong passwords, no pg_hba.conf entry, unknown roles and
 * databases, too many clients, a server starting or shutting down, by cause and client address.
 * What the client sent is never in these lines except the role and database names; the DETAIL
 * (which pg_hba.conf line matched) is not kept. The cause comes from the SQLSTATE, refined by the
 * message where one SQLSTATE has several causes; without a SQLSTATE (a stderr prefix without
 * {@code %e}) from the message alone.
 */
final class ConnectionFailures {

    private ConnectionFailures() {
    }

    static Optional<LogEvent> read(LogEntry entry) {
        if (!"FATAL".equals(entry.severity())) {
            return Optional.empty();
        }
        String cause = cause(entry.sqlState(), entry.message() == null ? "" : entry.message());
        if (cause == null) {
            return Optional.empty();
        }
        return Optional.of(new EventRow(entry).tag("cause", cause)
                .put("pid", null)
                .put("sqlstate", entry.sqlState())
                .put("client_addr", entry.clientAddress())
                .put("user_name", entry.user())
                .put("count", 1L)
                .as(LogCategory.CONNECTION_FAILURES));
    }

    private static String cause(String sqlState, String message) {
        if (message.startsWith("password authentication failed")) {
            return "invalid_password";
        }
        if (message.startsWith("no pg_hba.conf entry")) {
            return "no_hba_entry";
        }
        if (message.startsWith("role \"") && message.endsWith("does not exist")) {
            return "unknown_role";
        }
        if (message.endsWith("authentication failed for user") || message.contains(" authentication failed for user ")) {
            return "authentication_failed";
        }
        if (message.startsWith("sorry, too many clients")
                || message.startsWith("remaining connection slots are reserved")) {
            return "too_many_connections";
        }
        if (sqlState == null) {
            return message.startsWith("database \"") && message.endsWith("does not exist") ? "unknown_database" : null;
        }
        return switch (sqlState) {
            case "28P01" -> "invalid_password";
            case "28000" -> "invalid_authorization";
            case "53300" -> "too_many_connections";
            case "3D000" -> "unknown_database";
            case "57P03" -> "cannot_connect_now";
            default -> null;
        };
    }
}
