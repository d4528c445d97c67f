package io.pgharvest.source;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/**
 * {@code pgharvest.console.grafana-url}: an http(s) address of a Grafana, or nothing; a bad one stops
 * start-up naming the property, and never prints the value (it may hold a password).
 */
@Tag("fast")
class ConsolePropertiesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withUserConfiguration(PropertiesOnly.class).withBean(GrafanaDashboards.class);

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(ConsoleProperties.class)
    static class PropertiesOnly {
    }

    @Test
    void unsetMeansNoDashboardLink() {
        runner.run(context -> assertThat(context.getBean(GrafanaDashboards.class).databaseDashboard("db1")).isEmpty());
    }

    @Test
    void theLinkOpensTheShippedDatabaseDashboardWithTheSourceAsItsVariable() {
        runner.withPropertyValues("pgharvest.console.grafana-url=https://grafana.example.com/monitoring/")
                .run(context -> assertThat(context.getBean(GrafanaDashboards.class).databaseDashboard("billing db"))
                        .hasValue("https://grafana.example.com/monitoring/d/pgharvest-database?var-source=billing%20db"));
        runner.withPropertyValues("pgharvest.console.grafana-url=http://localhost:3000")
                .run(context -> assertThat(context.getBean(GrafanaDashboards.class).databaseDashboard("a&b=c"))
                        .hasValue("http://localhost:3000/d/pgharvest-database?var-source=a%26b%3Dc"));
    }

    @Test
    void anAddressThatIsNotHttpFailsStartUpNamingTheProperty() {
        for (String bad : new String[] {"grafana.example.com", "ftp://grafana.example.com", "javascript:alert(1)",
                "https://", "https://grafana.example.com/?orgId=1", "https://grafana.example.com/#top"}) {
            runner.withPropertyValues("pgharvest.console.grafana-url=" + bad).run(context ->
                    assertThat(context).as(bad).getFailure().hasStackTraceContaining("pgharvest.console.grafana-url"));
        }
    }

    @Test
    void anAddressWithCredentialsFailsStartUpWithoutShowingThem() {
        runner.withPropertyValues("pgharvest.console.grafana-url=https://admin:s3cret-pw@grafana.example.com")
                .run(context -> {
                    assertThat(context).getFailure().hasStackTraceContaining("pgharvest.console.grafana-url");
                    var trace = new java.io.StringWriter();
                    context.getStartupFailure().printStackTrace(new java.io.PrintWriter(trace));
                    assertThat(trace.toString()).doesNotContain("s3cret-pw");
                    // a binding failure would make Spring Boot print "Value: ..." under APPLICATION FAILED TO START
                    assertThat(trace.toString()).doesNotContain("BindException");
                });
    }
}
