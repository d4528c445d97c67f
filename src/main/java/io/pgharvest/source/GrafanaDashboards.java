package io.pgharvest.source;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.springframework.stereotype.Component;

/**
 * Links from the console to the shipped Grafana dashboards, when {@code pgharvest.console.grafana-url}
 * names a Grafana. The address is checked once at start-up: a bad one stops it with a message that
 * names the property and the rule, never the value.
 */
@Component
class GrafanaDashboards {

    /** The uid of grafana/prometheus/database-detail.json: Grafana opens a dashboard at /d/{uid}. */
    static final String DATABASE_DASHBOARD_UID = "pgharvest-database";
    static final String DATABASE_DASHBOARD_TITLE = "PostgreSQL database";
    private static final String PROPERTY = "pgharvest.console.grafana-url";

    private final String base;

    GrafanaDashboards(ConsoleProperties properties) {
        String text = properties.grafanaUrl();
        this.base = text == null || text.isBlank() ? null : parse(text.strip()).replaceAll("/+$", "");
    }

    private static String parse(String text) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(PROPERTY + " is not a URL; it must be an http:// or https:// address"
                    + " such as https://grafana.example.com");
        }
        String scheme = uri.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                || uri.isOpaque() || uri.getHost() == null) {
            throw new IllegalStateException(PROPERTY + " must be an http:// or https:// address with a host,"
                    + " such as https://grafana.example.com");
        }
        if (uri.getRawUserInfo() != null) {
            throw new IllegalStateException(PROPERTY + " must not hold a user or password: the console shows"
                    + " the link to everyone who uses it");
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalStateException(PROPERTY + " must not have a query (?...) or fragment (#...):"
                    + " pgharvest adds the dashboard's path and variables");
        }
        return uri.toString();
    }

    /** The shipped database dashboard with {@code source} chosen; empty without a Grafana address. */
    Optional<String> databaseDashboard(String source) {
        if (base == null) {
            return Optional.empty();
        }
        return Optional.of(base + "/d/" + DATABASE_DASHBOARD_UID + "?var-source="
                + URLEncoder.encode(source, StandardCharsets.UTF_8).replace("+", "%20"));
    }
}
