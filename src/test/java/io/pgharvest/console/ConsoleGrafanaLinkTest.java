package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.json.JsonMapper;

/**
 * With {@code pgharvest.console.grafana-url} set, a source's page links to the shipped Grafana
 * dashboard of one database, with the source chosen in its {@code source} variable: the history
 * beyond the recent window is one click away. (Without the setting there is no link:
 * ConsoleFirstUseTest, whose application has none.)
 */
class ConsoleGrafanaLinkTest extends ConsoleTestBase {

    private static final String GRAFANA = "https://grafana.example.test/monitoring";

    @DynamicPropertySource
    static void grafana(DynamicPropertyRegistry registry) {
        registry.add("pgharvest.console.grafana-url", () -> GRAFANA);
    }

    @Test
    void theSourcePageLinksToTheShippedDatabaseDashboardForThisSource() throws Exception {
        // The dashboard the link must open: the uid and variable of the file the repository ships.
        var dashboard = JsonMapper.builder().build().readTree(Files.readString(
                Path.of("grafana", "prometheus", "database-detail.json")));
        String uid = dashboard.get("uid").asString();
        assertThat(dashboard.get("templating").get("list").valueStream().map(v -> v.get("name").asString()))
                .contains("source");
        api("POST", "/api/v1/sources", """
                {"name": "grafana-linked", "connStr": "postgresql://monitor@127.0.0.1:1/x", "enabled": false,
                 "preset": "basic"}""");

        open("#/sources/grafana-linked");
        WebElement link = browser.waiting(Duration.ofSeconds(10))
                .until(d -> d.findElements(By.id("grafana-link")).isEmpty() ? null : d.findElement(By.id("grafana-link")));

        assertThat(link.getDomAttribute("href"))
                .isEqualTo(GRAFANA + "/d/" + uid + "?var-source=grafana-linked");
        assertThat(link.getDomAttribute("target")).isEqualTo("_blank");
        assertThat(link.getDomAttribute("rel")).contains("noopener").contains("noreferrer");
        assertThat(link.getText()).contains("Grafana");
    }
}
