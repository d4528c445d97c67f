/**
 * What a kind of sink implements: {@link io.pgharvest.sink.Sink} and
 * {@link io.pgharvest.sink.SinkPlugin} (one per kind, each in its own package -
 * {@code sink.postgres}, {@code sink.prometheus}, {@code sink.remotewrite}, {@code sink.jsonfile} -
 * with its own settings record), found by a {@link io.pgharvest.support.plugin.PluginRegistry} through
 * {@code META-INF/services/io.pgharvest.sink.SinkPlugin}; the exceptions a sink throws to refuse a
 * batch or ask for a delay, and the series mapping shared by the Prometheus sinks. The delivery
 * machinery around a sink is in {@code sink.delivery}, {@code sink.spill} and
 * {@code sink.dispatch}; this package imports none of them and names no kind.
 *
 * <p>Threads: a sink's {@code write} is called by one writer thread at a time; values here are
 * immutable, and the registry is immutable once built.
 */
package io.pgharvest.sink;
