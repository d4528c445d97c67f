package io.pgharvest.model.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LiteralRedactorTest {

    @Test
    void plainStringsAndNumbersBecomeNumberedParameters() {
        assertThat(LiteralRedactor.redact("select * from users where email = 'ann@example.com' and id = 42"))
                .isEqualTo("select * from users where email = $1 and id = $2");
    }

    @Test
    void everySpellingOfAStringConstantGoes() {
        assertThat(LiteralRedactor.redact("select E'it\\'s \\x41', e'x', U&'d\\0061t\\+000061' UESCAPE '!',"
                + " u&'q', B'1010', X'1FF', N'national', 'doubled '' quote'"))
                .isEqualTo("select $1, $2, $3, $4, $5, $6, $7, $8");
    }

    @Test
    void dollarQuotedStringsGoWithTheirTagsWhateverTheyHoldInside() {
        assertThat(LiteralRedactor.redact("select $$it's 'quoted' -- not a comment$$, $tag$x $$ y$tag$,"
                + " $é$non-ascii tag$é$"))
                .isEqualTo("select $1, $2, $3");
    }

    @Test
    void numbersInEverySpellingGoButMinusSignsAndNamesWithDigitsStay() {
        assertThat(LiteralRedactor.redact("select t1.c2 from t1 where a = -3.5e-10 or b = .5 or c = 1_000_000"
                + " or d = 0x1F or e = 1e6"))
                .isEqualTo("select t1.c2 from t1 where a = -$1 or b = $2 or c = $3 or d = $4 or e = $5");
    }

    @Test
    void arraysLoseEveryElement() {
        assertThat(LiteralRedactor.redact("select ARRAY[1, 2, 3], '{alice,bob}'::text[], array['x','y'], a[1:2]"))
                .isEqualTo("select ARRAY[$1, $2, $3], $4::text[], array[$5,$6], a[$7:$8]");
    }

    @Test
    void typedConstantsKeepTheirTypeName() {
        assertThat(LiteralRedactor.redact("select interval '1 day', date'2024-01-01', now() - '5 min'::interval"))
                .isEqualTo("select interval $1, date $2, now() - $3::interval");
    }

    @Test
    void commentsAreDroppedTheyCarryWhatAClientPutThere() {
        assertThat(LiteralRedactor.redact("select /* user='ann' /* nested 'x' */ still */ 1 -- token=abc\r\nfrom t"))
                .isEqualTo("select   $1  \r\nfrom t");
    }

    @Test
    void existingParametersStayAndNewOnesAreNumberedAfterThem() {
        assertThat(LiteralRedactor.redact("select * from t where a = $2 and b = 'x' and c = $1"))
                .isEqualTo("select * from t where a = $2 and b = $3 and c = $1");
    }

    @Test
    void aTextPostgresNormalizedComesBackUnchanged() {
        String normalized = "select name, \"Mixed Case\" from t where id = $1 and tags @> $2::text[] limit $3";
        assertThat(LiteralRedactor.redact(normalized)).isEqualTo(normalized);
    }

    @Test
    void quotedNamesStayAndMayHoldQuotes() {
        assertThat(LiteralRedactor.redact("select \"it's\", \"a\"\"b\", U&\"d\\0061t\" from t where x = 'v'"))
                .isEqualTo("select \"it's\", \"a\"\"b\", U&\"d\\0061t\" from t where x = $1");
    }

    @Test
    void namesHoldingDollarsOrDigitsAreNotLiterals() {
        assertThat(LiteralRedactor.redact("select a$1, b$$ from x2y where e1 = 1"))
                .isEqualTo("select a$1, b$$ from x2y where e1 = $1");
    }

    @Test
    void aStringGluedToAKeywordStaysSeparated() {
        assertThat(LiteralRedactor.redact("select'secret'")).isEqualTo("select $1");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "a string cut off by left(query, n)   | select * from t where email = 'ann@exam  | select * from t where email = …",
        "an E'' string cut off after \\'       | select E'it\\'s sec                       | select …",
        "a dollar quote that never closes      | do $body$ begin perform 'secret'          | do …",
        "a block comment that never closes     | select 1 /* token='abc'                   | select $1 …",
        "a quoted name that never closes       | select \"secret 'x'                        | select …",
        "a U&'' string cut off                 | select U&'d\\0061t                         | select …",
    })
    void textThatDoesNotLexLosesItsTail(String what, String sql, String expected) {
        String redacted = LiteralRedactor.redact(sql.strip());

        assertThat(redacted).isEqualTo(expected.strip());
        assertThat(redacted).doesNotContain("secret", "ann@", "abc", "it\\'s", "0061");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "a backslash before the closing quote  | select 'a\\', 'secret' from t             | select …",
        "a backslash quote inside              | select 1 where x = 'it\\'s', y = 'secret'  | select $1 where x = …",
        "a national string                     | select N'n\\' , 'secret'                   | select …",
    })
    void textReadDifferentlyWithStandardConformingStringsOffIsCutFromThere(String what, String sql, String expected) {
        String redacted = LiteralRedactor.redact(sql.strip());

        assertThat(redacted).isEqualTo(expected.strip());
        assertThat(redacted).doesNotContain("secret");
    }

    @Test
    void aBackslashBothReadingsAgreeOnKeepsTheRest() {
        assertThat(LiteralRedactor.redact("select E'a\\'b', $$c\\$$, 'd\\\\e', \"n\\\" from t where x = 'y'"))
                .isEqualTo("select $1, $2, $3, \"n\\\" from t where x = $4");
    }

    @Test
    void nothingAndNullStayAsTheyAre() {
        assertThat(LiteralRedactor.redact(null)).isNull();
        assertThat(LiteralRedactor.redact("")).isEmpty();
    }
}
