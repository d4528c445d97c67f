/**
 * One sink's delivery: {@link io.pgharvest.sink.delivery.SinkChannel} wires the memory queue
 * ({@link io.pgharvest.sink.delivery.ChannelQueue}), the mover to disk ({@link io.pgharvest.sink.delivery.Spiller},
 * which owns the group-commit period), the writer loop ({@link io.pgharvest.sink.delivery.SinkWriter})
 * with its retries ({@link io.pgharvest.sink.delivery.RetryPolicy}, which owns the probe period),
 * refused batches ({@link io.pgharvest.sink.delivery.Rejections}), and what the channel believes
 * and counts ({@link io.pgharvest.sink.delivery.SinkHealth}, {@link io.pgharvest.sink.delivery.SinkMeters}).
 *
 * <p>Threads: publishers (reapers) append under the queue's one lock and never wait for I/O; one
 * writer thread and one spiller thread per sink; the health is volatile fields and the meters
 * atomics, read by any thread; stop is called once, after the queue left RUNNING.
 */
package io.pgharvest.sink.delivery;
