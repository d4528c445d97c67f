/**
 * The one shape every extension point of pgharvest shares (sinks, history readers, alert
 * receivers): a {@link io.pgharvest.support.plugin.Plugin} per implementation, described by its
 * {@link io.pgharvest.support.plugin.PluginKind} (type, description, typed settings record and
 * its documented options), found by a {@link io.pgharvest.support.plugin.PluginRegistry} through
 * {@code META-INF/services}. The engine, the API, the console and the docs learn what exists from
 * the registry; adding an implementation is a package and a registration line.
 */
package io.pgharvest.support.plugin;
