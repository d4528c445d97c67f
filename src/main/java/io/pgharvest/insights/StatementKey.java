package io.pgharvest.insights;

/**
 * What pg_stat_statements keeps one entry for within one database: the statement's query id, the
 * role that ran it and whether it ran at top level (or inside a function, with
 * {@code pg_stat_statements.track = all}).
 *
 * @param queryId the server's query id
 * @param userId the role's OID
 * @param toplevel whether the statement ran at top level
 */
record StatementKey(long queryId, long userId, boolean toplevel) {
}
