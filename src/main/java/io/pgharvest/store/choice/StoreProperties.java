package io.pgharvest.store.choice;

import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Where the configuration lives, bound from {@code pgharvest.store.*}.
 *
 * @param url a PostgreSQL connection URI ({@code postgresql://user:password@host:5432/db}) of the
 *     configuration database that several pgharvest instances share; unset (the default): the
 *     files in the data directory
 * @param pollInterval how often an instance checks the configuration database's index when no
 *     notification came (the fallback for lost LISTEN/NOTIFY notifications); a change made by
 *     another instance is seen within this interval at the latest
 */
@ConfigurationProperties("pgharvest.store")
@Validated
public record StoreProperties(
        String url,
        @DefaultValue("500ms") @NotNull @DurationMin(millis = 50) @DurationMax(seconds = 1) Duration pollInterval) {

    public StoreProperties {
        url = url == null || url.isBlank() ? null : url;
    }
}
