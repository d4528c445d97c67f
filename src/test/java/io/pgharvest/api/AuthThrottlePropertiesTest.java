package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/** {@code pgharvest.api.auth-throttle.*}: documented defaults, and values outside their bounds stop start-up. */
@Tag("fast")
class AuthThrottlePropertiesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withUserConfiguration(PropertiesOnly.class)
            .withBean(org.springframework.validation.beanvalidation.LocalValidatorFactoryBean.class);

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(AuthThrottleProperties.class)
    static class PropertiesOnly {
    }

    @Test
    void theDefaultsAreTenPerMinuteASixtySecondFirstBackOffFifteenMinutesAtMostAndTenThousandClients() {
        runner.run(context -> assertThat(context.getBean(AuthThrottleProperties.class)).isEqualTo(
                new AuthThrottleProperties(10, Duration.ofSeconds(60), Duration.ofMinutes(15), 10_000)));
    }

    @Test
    void valuesOutsideTheirBoundsStopStartUpNamingTheProperty() {
        for (String bad : new String[] {"failures-per-minute=0", "failures-per-minute=10001", "first-back-off=0s",
                "max-back-off=25h", "max-clients=99", "first-back-off=20m"}) {
            runner.withPropertyValues("pgharvest.api.auth-throttle." + bad).run(context ->
                    assertThat(context).as(bad).getFailure()
                            .hasStackTraceContaining("pgharvest.api.auth-throttle"));
        }
    }
}
