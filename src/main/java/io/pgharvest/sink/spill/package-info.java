/**
 * The disk queue of one sink: {@link io.pgharvest.sink.spill.SpillLog} appends measurements to
 * segment files ({@link io.pgharvest.sink.spill.SpillSegment}, records framed with a sync marker and
 * checksummed by {@link io.pgharvest.sink.spill.SpillFrames}, the older format read by
 * {@link io.pgharvest.sink.spill.SpillRecords}, encoded by {@link io.pgharvest.sink.spill.SpillCodec}),
 * reads them back in order ({@link io.pgharvest.sink.spill.SpillCursor}), recovers after a crash
 * ({@link io.pgharvest.sink.spill.SpillRecovery}) and sets damaged files aside
 * ({@link io.pgharvest.sink.spill.SpillQuarantine}).
 *
 * <p>Threads: {@link io.pgharvest.sink.spill.SpillLog} is thread-safe; all its I/O happens under one
 * lock, taken by the sink's writer and spiller. The other classes are used only under that lock.
 */
package io.pgharvest.sink.spill;
