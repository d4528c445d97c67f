package io.pgharvest.nativemetric;

/**
 * The credentials query_plans logs in with to plan: a role of its own, on the source's server and
 * database with the source's other connection parameters (docs/security.md, "Plans run code a
 * database owner wrote"). A separate login, not {@code SET ROLE}: code run while planning can
 * {@code RESET ROLE} (or {@code set_config('role', ...)}) back to the session user, so only a
 * session that logged in as the planning role cannot become the monitoring role again.
 *
 * @param user the planning role's name
 * @param password its password; null when the server needs none (trust, a client certificate)
 */
public record PlanningLogin(String user, String password) {

    public PlanningLogin {
        if (user == null || user.isBlank()) {
            throw new IllegalArgumentException("a planning login needs a user");
        }
    }

    /** The user only: the password never appears in a log line or a status. */
    @Override
    public String toString() {
        return "PlanningLogin[user=" + user + ", password=" + (password == null ? "none" : "********") + "]";
    }
}
