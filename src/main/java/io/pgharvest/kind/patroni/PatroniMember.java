package io.pgharvest.kind.patroni;

/**
 * One member of a Patroni cluster as its key {@code /namespace/scope/members/name} in the DCS
 * describes it.
 *
 * @param scope the cluster's name
 * @param name the member's name
 * @param connUrl where its PostgreSQL listens ({@code postgres://host:port/db}, no credentials)
 * @param apiUrl its REST API ({@code http://host:8008/patroni}); null if not published
 * @param role Patroni's word: {@code master} (before 3.x also), {@code primary}, {@code replica},
 *     {@code standby_leader}, ...
 * @param state Patroni's state of its PostgreSQL: {@code running}, {@code starting}, ...
 */
record PatroniMember(String scope, String name, String connUrl, String apiUrl, String role, String state) {

    /** Primary as pgwatch reads it: Patroni's role {@code primary}, or {@code master} before Patroni 3.1. */
    boolean isPrimary() {
        return "primary".equals(role) || "master".equals(role);
    }

    /** The role as the status shows it: {@code primary} whatever Patroni's version calls it. */
    String displayRole() {
        return isPrimary() ? "primary" : role == null ? "unknown" : role;
    }
}
