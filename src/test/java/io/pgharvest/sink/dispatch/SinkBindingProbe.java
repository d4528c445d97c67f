package io.pgharvest.sink.dispatch;

import io.pgharvest.sink.SinkPlugin;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/** Binds {@code pgharvest.sinks} entries as start-up does, for tests of other packages. */
public final class SinkBindingProbe {

    private SinkBindingProbe() {
    }

    /**
     * The start-up error for the entries, or "" when they bind.
     *
     * @param entries per entry, option name (as written under {@code pgharvest.sinks[i].}) to value
     */
    public static String problems(List<Map<String, String>> entries) {
        var properties = new LinkedHashMap<String, Object>();
        for (int i = 0; i < entries.size(); i++) {
            int index = i;
            entries.get(i).forEach((option, value) -> properties.put("pgharvest.sinks[" + index + "]." + option, value));
        }
        var environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("test", properties));
        try (var registry = SinkPlugin.registry()) {
            new SinkEntries(registry).bind(environment);
            return "";
        } catch (SinkConfigurationException e) {
            return e.getMessage();
        }
    }
}
