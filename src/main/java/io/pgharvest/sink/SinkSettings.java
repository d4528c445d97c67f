package io.pgharvest.sink;

import io.pgharvest.support.plugin.PluginSettings;
import java.nio.file.Path;

/**
 * What the settings record of a kind of sink answers about itself once bound (absent options
 * already defaulted in its compact constructor): its problems, and where its sink writes.
 */
public interface SinkSettings extends PluginSettings {

    /**
     * Where a sink of these settings writes, for the status API and the console: never a user,
     * password, token or query string; null when unknown.
     *
     * @param dataDir pgharvest's data directory, for destinations that default below it
     */
    String destination(Path dataDir);
}
