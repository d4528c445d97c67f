package io.pgharvest.kind;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.RowTags;
import io.pgharvest.model.RowValues;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** Rows share their result's column names; a result with a repeated column name is refused, naming both. */
class ResultSetMapperTest {

    private static final TestPostgres pg = TestPostgres.shared();

    @Test
    void rowsOfOneResultShareTheirColumnsAndKeepOrderNullsAndTags() throws Exception {
        FetchedRows rows = read("select g as n, null::text as empty, 'x' || g as tag_kind, 2.5::float8 as f"
                + " from generate_series(1, 3) g");
        assertThat(rows.rows()).hasSize(3);
        Measurement.Row first = rows.rows().getFirst();
        assertThat(first.values()).isInstanceOf(RowValues.class);
        assertThat(first.values().keySet()).containsExactly("n", "empty", "f");
        assertThat(first.values()).containsEntry("n", 1L).containsEntry("empty", null).containsEntry("f", 2.5);
        assertThat(first.tags()).containsExactly(java.util.Map.entry("kind", "x1"));
        assertThat(rows.rows().get(2).values()).containsEntry("n", 3L);
    }

    @Test
    void aRepeatedColumnNameRefusesTheResultNamingBothColumns() throws Exception {
        FetchedRows rows = read("select 1 as a, 2 as b, 3 as a");
        assertThat(rows.rows()).isEmpty();
        assertThat(rows.refusal()).startsWith("columns 1 and 3 are both named \"a\"");

        FetchedRows tags = read("select 1 as n, 'a' as tag_x, 'b' as tag_x");
        assertThat(tags.rows()).isEmpty();
        assertThat(tags.refusal()).startsWith("columns 2 and 3 are both named \"tag_x\"");

        FetchedRows distinct = read("select 1 as a, 'p' as tag_a");
        assertThat(distinct.refusal()).isNull();
        assertThat(distinct.rows()).singleElement().satisfies(row -> {
            assertThat(row.values()).containsExactly(java.util.Map.entry("a", 1L));
            assertThat(row.tags()).containsExactly(java.util.Map.entry("a", "p"));
        });
    }

    @Test
    void tagsAreSharedByNameWhenAllPresentAndCompactedAroundNulls() throws Exception {
        FetchedRows rows = read("select g as n, 's' || g as tag_schema, case when g = 2 then null else 't' || g end"
                + " as tag_table from generate_series(1, 3) g");
        Measurement.Row first = rows.rows().getFirst();
        Measurement.Row second = rows.rows().get(1);
        assertThat(first.tags()).isInstanceOf(RowTags.class)
                .containsExactly(java.util.Map.entry("schema", "s1"), java.util.Map.entry("table", "t1"));
        assertThat(second.tags()).containsExactly(java.util.Map.entry("schema", "s2")); // NULL tag left out
        assertThat(rows.rows().get(2).tags()).containsEntry("table", "t3").hasSize(2);
    }

    private static FetchedRows read(String sql) throws Exception {
        try (Connection c = pg.connect("postgres"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(sql)) {
            return ResultSetMapper.read(rs);
        }
    }
}
