/**
 * The pooler consoles (kinds {@code pgbouncer} and {@code pgpool}): one family, since both speak
 * PostgreSQL's wire protocol with SHOW commands and differ only in their
 * {@link io.pgharvest.kind.pooler.AdminConsoleDialect} (and so in their rules,
 * {@link io.pgharvest.kind.pooler.PgbouncerKindRules} and {@link io.pgharvest.kind.pooler.PgpoolKindRules}
 * over {@code AdminConsoleKindRules}). pgharvest's own small client
 * ({@link io.pgharvest.kind.pooler.AdminConsoleClient}, with TLS and SCRAM) sends only the startup
 * parameters a console accepts; {@link io.pgharvest.kind.pooler.AdminConsoleSourceSession} is the
 * engine's session on it. See docs/poolers.md.
 *
 * <p>Threads: {@link io.pgharvest.kind.pooler.AdminConsoleOpener} and the endpoints hold no state and
 * are shared; a console session and its client are owned by one reaper's thread.
 */
package io.pgharvest.kind.pooler;
