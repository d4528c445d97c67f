package io.pgharvest.insights;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Settings of the query insights metrics ({@code pgharvest.query-insights.*}, docs/query-insights.md).
 *
 * @param topStatements how many statements of a database get a query_stats row of their own on
 *     each read (by execution plus planning time in the interval); the rest are summed into one
 *     row with {@code queryid = other}. 1 to 1,000
 * @param includeOwnStatements whether query_stats counts the statements of pgharvest's own login
 *     role (and of the role its sessions act as). Off by default: the collector's own reads would
 *     otherwise show among the database's statements and crowd the top with monitoring
 */
@Validated
@ConfigurationProperties("pgharvest.query-insights")
public record QueryInsightsProperties(@Min(1) @Max(1000) @DefaultValue("50") int topStatements,
        @DefaultValue("false") boolean includeOwnStatements) {

    public QueryInsightsProperties {
        if (topStatements < 1 || topStatements > 1000) {
            throw new IllegalArgumentException("pgharvest.query-insights.top-statements must be 1 to 1000, got "
                    + topStatements);
        }
    }
}
