package io.pgharvest.insights;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What a real server's EXPLAIN (VERBOSE, FORMAT JSON) writes into each plan field that can hold a
 * constant, with a constant in it, comes out of {@link PlanDocument} without the constant, the
 * field still there. {@code Order By} (a nearest-neighbour index scan's ordering) was published
 * as written before plans were redacted from an allow-list of fields.
 */
class PlanFieldsRedactionTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final String DB = "insights_plan_fields";

    @BeforeAll
    static void prepare() {
        pg.createDatabase(DB);
        pg.execute(DB, "drop table if exists places");
        pg.execute(DB, "create table places (id int primary key, code text, label text, location point)");
        pg.execute(DB, "insert into places select i, 'code-' || i, 'label-' || (i % 50), point(i % 97, i % 89)"
                + " from generate_series(1, 3000) i");
        pg.execute(DB, "create index places_code on places (code)");
        pg.execute(DB, "create index places_location on places using gist (location)");
        pg.execute(DB, "analyze places");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', quoteCharacter = '`', value = {
        "Order By     ; 31337.5  ; select id from places order by location <-> point '(31337.5,4242.25)' limit 3",
        "Filter       ; secret-filter-a1 ; select id from places where label = 'secret-filter-a1'",
        "Index Cond   ; secret-index-b2  ; select id from places where code = 'secret-index-b2'",
        "Recheck Cond ; secret-recheck-c3 ; select id from places where code = 'secret-recheck-c3' or code = 'x'",
        "Sort Key     ; secret-sort-e5   ; select id from places order by label || 'secret-sort-e5'",
        "Group Key    ; secret-group-f6  ; select label || 'secret-group-f6', count(*) from places group by 1",
        "Hash Cond    ; secret-hash-g7   ; select 1 from places a join places b on a.label || 'secret-hash-g7' = b.label",
        "Output       ; secret-output-h8 ; select 'secret-output-h8' || label from places",
    })
    void aConstantInThePlanFieldIsRedactedAndTheFieldStays(String field, String secret, String statement) {
        String explained = pg.queryString(DB, "explain (verbose, format json) " + statement);
        assertThat(explained).as("the server's plan").contains("\"" + field + "\"").contains(secret);

        String published = PlanDocument.of(explained).json();

        assertThat(published).contains("\"" + field + "\"").doesNotContain(secret);
    }
}
