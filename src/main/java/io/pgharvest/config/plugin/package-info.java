/**
 * Binding a configured list of plug-ins, {@code pgharvest.<list>[n]} (the sinks, the history
 * readers): each entry's common options to the list's own record and, by its {@code type}, the
 * rest to that kind's settings record from its {@link io.pgharvest.support.plugin.PluginRegistry}.
 * Every problem of every entry is collected and reported together, naming the entry and option.
 * Here rather than in {@code support.plugin} because it binds through Spring Boot's
 * {@code Binder}, and {@code support} uses no framework.
 */
package io.pgharvest.config.plugin;
