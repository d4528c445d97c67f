package io.pgharvest.config;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import java.nio.file.Path;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The operator-facing settings of pgharvest, bound from {@code pgharvest.*}. Validated at
 * start-up: a bad value stops the application with a message naming the property.
 *
 * @param dataDir directory holding {@code sources.yaml}, {@code metrics.yaml}, the store's index
 *     file, the generated API token, and the sinks' spill logs and default JSON lines file; created
 *     (owner-only) when missing. Bound here only: the sinks get it from {@link DataDirectory}
 * @param api settings of the REST admin API
 * @param connectTimeout how long a connection attempt to a monitored server may take, e.g. for
 *     the connection test of the admin API
 */
@ConfigurationProperties("pgharvest")
@Validated
public record HarvestProperties(
        @DefaultValue("./pgharvest-data") @NotNull Path dataDir,
        @DefaultValue @NotNull @Valid Api api,
        @DefaultValue("5s") @NotNull @DurationMin(millis = 100) @DurationMax(minutes = 5) Duration connectTimeout) {

    /**
     * Settings of the REST admin API.
     *
     * @param token the bearer token every {@code /api/**} and actuator request must carry; when
     *     unset, pgharvest generates one once and keeps it in {@code <data-dir>/api-token}. At least
     *     16 visible ASCII characters, checked by {@code ApiToken} rather than by a Bean Validation
     *     constraint: Spring Boot prints a rejected property's value in the start-up error, and this
     *     value is a secret.
     */
    public record Api(String token) {

        public Api {
            token = token == null || token.isBlank() ? null : token;
        }

        /** Never shows the token. */
        @Override
        public String toString() {
            return "Api[token=" + (token == null ? "unset" : "***") + "]";
        }
    }
}
