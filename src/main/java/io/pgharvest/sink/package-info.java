/**
 * What a kind of sink implements and is configured with: {@link io.pgharvest.sink.Sink},
 * {@link io.pgharvest.sink.SinkFactory} (one Spring component per kind, in {@code sink.postgres},
 * {@code sink.prometheus}, {@code sink.remotewrite}, {@code sink.jsonfile}), the settings, the
 * exceptions a sink throws to refuse a batch or ask for a delay, and the series mapping shared by
 * the Prometheus sinks. The delivery machinery around a sink is in {@code sink.delivery},
 * {@code sink.spill} and {@code sink.dispatch}; this package imports none of them.
 *
 * <p>Threads: a sink's {@code write} is called by one writer thread at a time; values here are
 * immutable.
 */
package io.pgharvest.sink;
