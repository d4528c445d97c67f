package io.pgharvest.sink;

import java.nio.file.Path;
import java.util.List;

/**
 * What the settings record of a kind of sink answers about itself, once bound (absent options
 * already defaulted in its compact constructor).
 */
public interface SinkSettings {

    /**
     * Every problem, each starting with the option's full path under {@code prefix} (e.g.
     * {@code pgharvest.sinks[0].url}); never quotes a secret back.
     */
    List<String> problems(String prefix);

    /**
     * Where a sink of these settings writes, for the status API and the console: never a user,
     * password, token or query string; null when unknown.
     *
     * @param dataDir pgharvest's data directory, for destinations that default below it
     */
    String destination(Path dataDir);
}
