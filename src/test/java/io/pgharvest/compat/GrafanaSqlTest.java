package io.pgharvest.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The dashboard check expands Grafana's macros and variables the way Grafana's PostgreSQL data source does. */
@Tag("fast")
class GrafanaSqlTest {

    private final GrafanaSql sql = new GrafanaSql(Instant.parse("2026-01-01T00:00:00Z"),
            Instant.parse("2026-01-01T01:00:00Z"), Duration.ofMinutes(1));

    @Test
    void timeMacrosAndVariablesAreExpanded() {
        String expanded = sql.expand("""
                select $__timeGroup(time, $agg_interval), avg((data->>'x')::int8) from db_stats
                where dbname = '$dbname' and ${dbname:singlequote} is not null and $__timeFilter(time)
                  and time > $__timeFrom() and tag_data->>'t' = '[[tab]]' group by 1""",
                Map.of("dbname", "db1", "agg_interval", "5m", "tab", "public.t"));

        assertThat(expanded).isEqualTo("""
                select floor(extract(epoch from time)/300)*300, avg((data->>'x')::int8) from db_stats
                where dbname = 'db1' and 'db1' is not null and time BETWEEN '2026-01-01T00:00:00Z' AND \
                '2026-01-01T01:00:00Z'
                  and time > '2026-01-01T00:00:00Z' and tag_data->>'t' = 'public.t' group by 1""");
    }

    @Test
    void timeGroupAliasNamesTheColumnTimeAndIntervalsAreReadInGrafanasUnits() {
        assertThat(sql.expand("$__timeGroupAlias(time, '1h')", Map.of()))
                .isEqualTo("floor(extract(epoch from time)/3600)*3600 AS \"time\"");
        assertThat(sql.expand("$__timeGroup(time, $__interval)", Map.of()))
                .isEqualTo("floor(extract(epoch from time)/60)*60");
        assertThat(sql.seconds("30s")).isEqualTo(30);
        assertThat(sql.seconds("2d")).isEqualTo(172_800);
    }
}
