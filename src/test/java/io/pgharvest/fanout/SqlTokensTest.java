package io.pgharvest.fanout;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.fanout.SqlTokens.Token;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The fan-out rewrite trusts this lexer never to read a name out of a string or a comment. */
class SqlTokensTest {

    @Nested
    class WordsNumbersAndPunctuation {

        @Test
        void splitsAQueryIntoWordsNumbersAndPunctuationWithTheirOffsets() {
            List<Token> tokens = tokens("select datname, 1.5 from pg_stat_database");

            assertThat(shapes(tokens)).containsExactly("WORD select", "WORD datname", "PUNCT ,", "NUMBER 1.5",
                    "WORD from", "WORD pg_stat_database");
            assertThat(tokens.get(1).start()).isEqualTo(7);
            assertThat(tokens.get(1).end()).isEqualTo(14);
            assertThat(tokens.get(5).start()).isEqualTo(25);
        }

        @Test
        void aWordIsReadInLowerCaseAndOnlyWordsHaveOne() {
            List<Token> tokens = tokens("SELECT \"Name\" 'x'");

            assertThat(tokens).extracting(Token::word).containsExactly("select", "", "");
        }

        @Test
        void namesMayHoldDollarsDigitsAndLettersOfAnyScript() {
            assertThat(shapes(tokens("a$b größe _x1"))).containsExactly("WORD a$b", "WORD größe", "WORD _x1");
        }

        @Test
        void aCastIsOnePunctuationTokenAndOtherPunctuationIsOneCharacterEach() {
            List<Token> tokens = tokens("x::int8>=(1)");

            assertThat(shapes(tokens)).containsExactly("WORD x", "PUNCT ::", "WORD int8", "PUNCT >", "PUNCT =",
                    "PUNCT (", "NUMBER 1", "PUNCT )");
            assertThat(tokens.get(1).is("::")).isTrue();
            assertThat(tokens.get(3).is("::")).isFalse();
            assertThat(tokens.get(0).is("x")).isFalse(); // a word is never punctuation
        }

        @Test
        void aPositionalParameterIsNotADollarQuote() {
            assertThat(shapes(tokens("where a = $1 and b = $2"))).containsExactly("WORD where", "WORD a", "PUNCT =",
                    "PUNCT $", "NUMBER 1", "WORD and", "WORD b", "PUNCT =", "PUNCT $", "NUMBER 2");
        }

        @Test
        void emptyOrBlankTextHasNoTokens() {
            assertThat(SqlTokens.of("")).contains(List.of());
            assertThat(SqlTokens.of(" \n\t ")).contains(List.of());
        }
    }

    @Nested
    class Quotes {

        @Test
        void aStringKeepsDoubledQuotesAndWhatLooksLikeSqlInside() {
            assertThat(shapes(tokens("select 'it''s -- not /* a comment', x")))
                    .containsExactly("WORD select", "STRING 'it''s -- not /* a comment'", "PUNCT ,", "WORD x");
        }

        @Test
        void aBackslashEndsNothingInAStandardString() {
            // standard_conforming_strings: 'a\' is a whole string
            assertThat(shapes(tokens("'a\\' , 'b'"))).containsExactly("STRING 'a\\'", "PUNCT ,", "STRING 'b'");
        }

        @Test
        void anEscapeStringTakesBackslashEscapesInEitherCase() {
            assertThat(shapes(tokens("E'it\\'s', e'\\\\', x")))
                    .containsExactly("STRING E'it\\'s'", "PUNCT ,", "STRING e'\\\\'", "PUNCT ,", "WORD x");
        }

        @Test
        void aQuotedNameKeepsDoubledQuotesAndIsNotAWord() {
            List<Token> tokens = tokens("select \"a \"\"b\"\" -- c\" from t");

            assertThat(shapes(tokens)).containsExactly("WORD select", "QUOTED_NAME \"a \"\"b\"\" -- c\"", "WORD from",
                    "WORD t");
        }

        @Test
        void unicodeEscapesAreAWordAnAmpersandAndAnOrdinaryLiteral() {
            // U&'...' takes \XXXX escapes but a quote still ends it, so it lexes like a standard string.
            assertThat(shapes(tokens("U&'d\\0061t\\+000061' , U&\"d\\0061t\"")))
                    .containsExactly("WORD U", "PUNCT &", "STRING 'd\\0061t\\+000061'", "PUNCT ,", "WORD U",
                            "PUNCT &", "QUOTED_NAME \"d\\0061t\"");
        }

        @Test
        void aUnicodeEscapeStringWithABackslashBeforeItsClosingQuoteEndsThere() {
            assertThat(shapes(tokens("U&'\\' , x"))).containsExactly("WORD U", "PUNCT &", "STRING '\\'", "PUNCT ,",
                    "WORD x");
        }

        @Test
        void dollarQuotesHoldQuotesCommentsAndOtherTags() {
            assertThat(shapes(tokens("select $$it's -- x$$, $fn$ a $x$ 'b $fn$ from t")))
                    .containsExactly("WORD select", "STRING $$it's -- x$$", "PUNCT ,", "STRING $fn$ a $x$ 'b $fn$",
                            "WORD from", "WORD t");
        }

        @Test
        void aDollarTagMustNotStartWithADigit() {
            assertThat(shapes(tokens("$1$"))).containsExactly("PUNCT $", "NUMBER 1", "PUNCT $");
        }
    }

    @Nested
    class Comments {

        @Test
        void aLineCommentRunsToTheEndOfTheLineOrOfTheText() {
            assertThat(shapes(tokens("a -- 'x\nb -- y"))).containsExactly("WORD a", "COMMENT -- 'x", "WORD b",
                    "COMMENT -- y");
        }

        @Test
        void blockCommentsNestAsInPostgresql() {
            assertThat(shapes(tokens("a /* x /* 'y */ z */ b")))
                    .containsExactly("WORD a", "COMMENT /* x /* 'y */ z */", "WORD b");
        }

        @Test
        void aCommentMarkerInsideAStringOrNameIsText() {
            assertThat(shapes(tokens("'/*' \"--\" x"))).containsExactly("STRING '/*'", "QUOTED_NAME \"--\"", "WORD x");
        }
    }

    @Nested
    class UnclosedText {

        @ParameterizedTest
        @ValueSource(strings = {"select 'abc", "select E'abc\\'", "select \"abc", "select $$abc", "select $t$ abc $u$",
                "select /* a /* b */", "select /*"})
        void anUnclosedLiteralOrCommentGivesNoTokensAtAll(String sql) {
            // Callers then leave the SQL alone rather than rewrite half of it.
            assertThat(SqlTokens.of(sql)).isEmpty();
        }
    }

    private static List<Token> tokens(String sql) {
        return SqlTokens.of(sql).orElseThrow(() -> new AssertionError("did not lex: " + sql));
    }

    private static List<String> shapes(List<Token> tokens) {
        return tokens.stream().map(t -> t.kind() + " " + t.text()).toList();
    }

}
