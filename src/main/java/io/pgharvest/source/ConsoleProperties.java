package io.pgharvest.source;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The console's settings. Bound as text and parsed by {@link GrafanaDashboards}: Spring's binding
 * failures print the value, and an address may hold a password.
 *
 * @param grafanaUrl the address of a Grafana that has the shipped dashboards (grafana/prometheus/)
 *     imported, such as {@code https://grafana.example.com} or one under a path; a source's page
 *     then links to the database dashboard with the source chosen. An absolute http or https URL
 *     without credentials, query or fragment; unset, no link
 */
@ConfigurationProperties("pgharvest.console")
public record ConsoleProperties(String grafanaUrl) {
}
