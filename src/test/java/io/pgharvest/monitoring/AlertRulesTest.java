package io.pgharvest.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.InstalledPrograms;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The shipped alerting rules (prometheus/rules/) parse with Prometheus' own promtool and pass their
 * unit tests: each alert fires on the series pgharvest writes and stays quiet on healthy ones.
 */
class AlertRulesTest {

    private static final Path RULES = Path.of("prometheus", "rules");

    @Test
    void theShippedRulesPassPromtoolCheck() throws Exception {
        Result check = promtool("check", "rules", "pgharvest.rules.yml");
        assertThat(check.exitCode()).as(check.output()).isZero();
        assertThat(check.output()).contains("SUCCESS: 13 rules found");
    }

    @Test
    void everyAlertPassesItsPromtoolUnitTest() throws Exception {
        Result test = promtool("test", "rules", "pgharvest.rules.test.yml");
        assertThat(test.exitCode()).as(test.output()).isZero();
        assertThat(test.output()).contains("SUCCESS");
    }

    @Test
    void everyAlertHasAUnitTestThatExpectsItToFire() throws Exception {
        var yaml = new YAMLMapper();
        var alerts = new TreeSet<String>();
        yaml.readTree(RULES.resolve("pgharvest.rules.yml").toFile()).path("groups")
                .forEach(group -> group.path("rules").forEach(rule -> alerts.add(rule.path("alert").asString())));
        var fired = new TreeSet<String>();
        yaml.readTree(RULES.resolve("pgharvest.rules.test.yml").toFile()).path("tests")
                .forEach(test -> test.path("alert_rule_test").forEach(expectation -> {
                    if (!expectation.path("exp_alerts").isEmpty()) {
                        fired.add(expectation.path("alertname").asString());
                    }
                }));
        assertThat(alerts).hasSize(13);
        assertThat(fired).containsExactlyElementsOf(alerts);
    }

    private record Result(int exitCode, String output) {
    }

    private static Result promtool(String... arguments) throws IOException, InterruptedException {
        var command = new java.util.ArrayList<>(List.of(InstalledPrograms.require("promtool").toString()));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).directory(RULES.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("promtool did not finish within 120 s");
        }
        return new Result(process.exitValue(), output);
    }
}
