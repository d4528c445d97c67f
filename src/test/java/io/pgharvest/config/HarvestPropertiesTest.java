package io.pgharvest.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

@Tag("fast")
class HarvestPropertiesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ValidationAutoConfiguration.class))
            .withUserConfiguration(PropertiesOnly.class);

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(HarvestProperties.class)
    static class PropertiesOnly {
    }

    @Test
    void defaultsApplyWhenNothingIsSet() {
        runner.run(context -> {
            HarvestProperties properties = context.getBean(HarvestProperties.class);
            assertThat(properties.dataDir().normalize()).isEqualTo(Path.of("pgharvest-data"));
            assertThat(properties.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
            assertThat(properties.api().token()).isNull();
        });
    }

    @Test
    void environmentStyleNamesBind() {
        Map<String, Object> environment = Map.of("PGHARVEST_API_TOKEN", "abcdefghijklmnopqrstuvwxyz",
                "PGHARVEST_CONNECT_TIMEOUT", "750ms");
        runner.withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                        new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                                environment)))
                .run(context -> {
                    HarvestProperties properties = context.getBean(HarvestProperties.class);
                    assertThat(properties.api().token()).isEqualTo("abcdefghijklmnopqrstuvwxyz");
                    assertThat(properties.connectTimeout()).isEqualTo(Duration.ofMillis(750));
                });
    }

    @Test
    void aBlankTokenMeansNoToken() {
        runner.withPropertyValues("pgharvest.api.token= ").run(context ->
                assertThat(context.getBean(HarvestProperties.class).api().token()).isNull());
    }

    @Test
    void aConnectTimeoutOfZeroFailsStartUpNamingTheProperty() {
        runner.withPropertyValues("pgharvest.connect-timeout=0s").run(context ->
                assertThat(context).getFailure().rootCause().hasMessageContaining("pgharvest")
                        .hasMessageContaining("connectTimeout"));
    }

    @Test
    void theTokenNeverShowsInTheirTextForm() {
        runner.withPropertyValues("pgharvest.api.token=abcdefghijklmnopqrstuvwxyz").run(context ->
                assertThat(context.getBean(HarvestProperties.class).toString())
                        .doesNotContain("abcdefghijklmnopqrstuvwxyz").contains("token=***"));
    }

    @Test
    void anUnparseableTimeoutFailsStartUpNamingTheProperty() {
        runner.withPropertyValues("pgharvest.connect-timeout=soon").run(context ->
                assertThat(context).getFailure().hasStackTraceContaining("pgharvest.connect-timeout"));
    }
}
