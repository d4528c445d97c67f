/**
 * From the engine to every sink: {@link io.pgharvest.sink.dispatch.SinkDispatcher} is the
 * {@code model.MeasurementPublisher} that hands each batch to every sink's channel;
 * {@link io.pgharvest.sink.dispatch.SinkConfiguration} builds the sinks with the kinds of the
 * sink registry, from the entries {@link io.pgharvest.sink.dispatch.SinkEntries} binds by type; {@link io.pgharvest.sink.dispatch.ConfigStoreMetricCatalog} tells the sinks
 * about metrics; {@link io.pgharvest.sink.dispatch.SinksHealthContributor} reports each sink.
 *
 * <p>Threads: publish is called by many reapers at once and only appends to the channels' queues;
 * start and stop are called once by Spring's lifecycle.
 */
package io.pgharvest.sink.dispatch;
