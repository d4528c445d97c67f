/**
 * PostgreSQL's protocol stream as pgjdbc reads it, below every kind and store: the socket and TLS
 * factories pgjdbc makes by name ({@link io.pgharvest.support.wire.SessionSockets},
 * {@link io.pgharvest.support.wire.SessionTls}) whose input is followed frame by frame
 * ({@link io.pgharvest.support.wire.ResultBytesBound}), to bound a result's bytes and the notices a
 * server sends. Monitoring sessions ({@code kind.postgres.SessionOpener}) arm the bound after their
 * login; the sessions of pgharvest's own databases arm it themselves
 * ({@link io.pgharvest.support.wire.OwnSessions}).
 */
package io.pgharvest.support.wire;
