package io.pgharvest.kind;

import java.sql.SQLException;

/**
 * pgharvest itself refused a session the server accepted (a superuser login while
 * {@code pgharvest.security.allow-superuser-sources} is off, a privileged role while
 * {@code pgharvest.reaper.refuse-privileged-sources} is on). The server is up: the source reads as
 * refused, with this message as the reason, never as down. SQLState {@code 42501}.
 */
public class SessionRefusedException extends SQLException {

    public SessionRefusedException(String reason) {
        super(reason, "42501");
    }

    /** Whether {@code error}, or what it wraps, is a refusal. */
    public static boolean isRefusal(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof SessionRefusedException) {
                return true;
            }
        }
        return false;
    }
}
