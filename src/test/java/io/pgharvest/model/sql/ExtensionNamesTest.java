package io.pgharvest.model.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.sql.ExtensionNames.Member;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Which names of extension objects a metric's text gets qualified, and which stay as written. */
@Tag("fast")
class ExtensionNamesTest {

    private static final ExtensionNames NAMES = ExtensionNames.of(List.of(
            new Member("public", "pg_stat_statements", false),
            new Member("public", "pg_stat_statements", true),
            new Member("tools", "pg_buffercache", false),
            new Member("tools", "pgstattuple_approx", true),
            new Member("a", "twice", false), new Member("b", "twice", false),
            new Member("pg_catalog", "plpgsql_call_handler", true)));

    private static String qualified(String sql) {
        return NAMES.qualify(sql, true).sql();
    }

    @Test
    void relationsAfterFromJoinAndCommasOfAFromListAreQualified() {
        assertThat(qualified("select calls from\n  pg_stat_statements s where dbid = 1"))
                .isEqualTo("select calls from\n  \"public\".\"pg_stat_statements\" s where dbid = 1");
        assertThat(qualified("select 1 from pg_database d join pg_buffercache b on b.reldatabase = d.oid"))
                .isEqualTo("select 1 from pg_database d join \"tools\".\"pg_buffercache\" b on b.reldatabase = d.oid");
        assertThat(qualified("select 1 from pg_class c, pg_buffercache b"))
                .isEqualTo("select 1 from pg_class c, \"tools\".\"pg_buffercache\" b");
        assertThat(qualified("select 1 from only PG_STAT_STATEMENTS"))
                .isEqualTo("select 1 from only \"public\".\"pg_stat_statements\"");
        assertThat(qualified("select 1 from \"pg_buffercache\""))
                .isEqualTo("select 1 from \"tools\".\"pg_buffercache\"");
    }

    @Test
    void callsAreQualifiedWhereverTheyAre() {
        assertThat(qualified("select * from pg_class c join lateral pgstattuple_approx(c.oid) st on true"))
                .isEqualTo("select * from pg_class c join lateral \"tools\".\"pgstattuple_approx\"(c.oid) st on true");
        assertThat(qualified("select (select count(*) from pg_stat_statements(false)) as n"))
                .isEqualTo("select (select count(*) from \"public\".\"pg_stat_statements\"(false)) as n");
    }

    @Test
    void namesThatAreNotARelationOrACallStayAsWritten() {
        for (String sql : List.of(
                "select pg_stat_statements.calls from public.pg_stat_statements", // qualified; a column's qualifier
                "select x.pg_buffercache from pg_class x", // a column
                "select 'from pg_stat_statements' /* from pg_stat_statements */", // a constant, a comment
                "with pg_stat_statements as (select 1 as calls) select calls from pg_stat_statements", // WITH query
                "with pg_buffercache(a) as (select 1) select a from pg_buffercache",
                "select extract(epoch from pg_stat_statements) from t", // extract's FROM
                "select 1 from t as pg_buffercache", // an alias
                "select 1 from twice", // two schemas hold one: ambiguous
                "select 1 from t where a is distinct from pg_buffercache",
                "select plpgsql_call_handler()")) { // in pg_catalog already
            assertThat(NAMES.qualify(sql, true).changed()).as(sql).isFalse();
            assertThat(qualified(sql)).isEqualTo(sql);
        }
    }

    @Test
    void whatItNamesIsReported() {
        assertThat(NAMES.namedIn("select * from pg_stat_statements, pg_buffercache where pgstattuple_approx(1) > 0"))
                .containsExactlyInAnyOrder(new Member("public", "pg_stat_statements", false),
                        new Member("tools", "pg_buffercache", false), new Member("tools", "pgstattuple_approx", true));
        assertThat(ExtensionNames.NONE.qualify("select 1 from pg_stat_statements", true).changed()).isFalse();
    }

    @Test
    void aSchemaNameIsQuotedAsTheServerReadsIt() {
        var odd = ExtensionNames.of(List.of(new Member("My \"Ext\"", "pg_stat_statements", false)));
        assertThat(odd.qualify("select 1 from pg_stat_statements", true).sql())
                .isEqualTo("select 1 from \"My \"\"Ext\"\"\".\"pg_stat_statements\"");
    }

    @Test
    void equalContentsAreEqual() {
        var again = ExtensionNames.of(List.of(new Member("public", "pg_stat_statements", true),
                new Member("public", "pg_stat_statements", false), new Member("tools", "pg_buffercache", false),
                new Member("tools", "pgstattuple_approx", true), new Member("a", "twice", false),
                new Member("b", "twice", false)));
        assertThat(again).isEqualTo(NAMES).hasSameHashCodeAs(NAMES);
    }
}
