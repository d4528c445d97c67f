package io.pgharvest.model.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Which normalized texts query_plans may ask a plan of, and how many parameters each has. */
@Tag("fast")
class PlainReadTest {

    @Test
    void aSelectOrWithSelectIsAPlainReadWithItsHighestParameter() {
        assertThat(PlainRead.parameterCount("select name from t where id = $1 and x > $3")).isEqualTo(OptionalInt.of(3));
        assertThat(PlainRead.parameterCount("WITH a AS (select 1) SELECT * FROM a;")).isEqualTo(OptionalInt.of(0));
        assertThat(PlainRead.parameterCount("(select $1) union (select $2)")).isEqualTo(OptionalInt.of(2));
        assertThat(PlainRead.parameterCount("select 'insert into x' as words, \"update\" from t")).isPresent();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "update t set a = $1", "insert into t values ($1)", "delete from t", "merge into t using s on true do nothing",
        "with d as (delete from t returning *) select * from d", "select * into copy_of_t from t",
        "select * from t for update", "select 1; drop table t", "analyze t", "explain select 1",
        "create table x as select 1", "values (1)", "select 'unclosed", "  ", "prepare p as select 1"})
    void anythingElseIsNot(String text) {
        assertThat(PlainRead.parameterCount(text)).isEmpty();
    }
}
