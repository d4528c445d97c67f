package io.pgharvest.model.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.model.sql.SqlLexer.Kind;
import io.pgharvest.model.sql.SqlLexer.Token;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shapes of tokens, without a server. What the server itself reads of the hard cases is
 * compared in {@link SqlLexerAgreesWithPostgresTest}.
 */
@Tag("fast")
class SqlLexerTest {

    @Nested
    class WordsNumbersAndSymbols {

        @Test
        void splitsAQueryIntoTokensWithTheirOffsetsAndLeavesNoGap() {
            String sql = "select datname, 1.5 from pg_stat_database";
            List<Token> tokens = SqlLexer.lex(sql).tokens();

            assertThat(shapes(code(sql))).containsExactly("WORD select", "WORD datname", "PUNCTUATION ,",
                    "NUMBER 1.5", "WORD from", "WORD pg_stat_database");
            assertThat(tokens.get(2).start()).isEqualTo(7);
            assertThat(tokens.get(2).end()).isEqualTo(14);
            assertThat(String.join("", tokens.stream().map(Token::text).toList())).isEqualTo(sql);
            for (Token token : tokens) {
                assertThat(sql.substring(token.start(), token.end())).isEqualTo(token.text());
            }
        }

        @Test
        void aWordIsFoldedToLowerCaseInItsAsciiLettersOnly() {
            assertThat(code("SELECT ÉtÉ \"Name\" 'x'")).extracting(Token::word).containsExactly("select", "ÉtÉ", "", "");
        }

        @Test
        void namesMayHoldDollarsDigitsAndAnyNonAsciiCharacter() {
            assertThat(shapes(code("a$b größe _x1 é$$"))).containsExactly("WORD a$b", "WORD größe", "WORD _x1",
                    "WORD é$$");
        }

        @Test
        void castsAndPunctuationAreOneTokenEachAndOperatorsAreCutAsTheServerCutsThem() {
            List<Token> tokens = code("x::int8>=(1) and j->>'k' and a=-1 and b@-1 and c<>d and e +/*c*/ f");

            assertThat(shapes(tokens)).containsExactly("WORD x", "PUNCTUATION ::", "WORD int8", "OPERATOR >=",
                    "PUNCTUATION (", "NUMBER 1", "PUNCTUATION )", "WORD and", "WORD j", "OPERATOR ->>", "STRING 'k'",
                    "WORD and", "WORD a", "OPERATOR =", "OPERATOR -", "NUMBER 1", "WORD and", "WORD b", "OPERATOR @-",
                    "NUMBER 1", "WORD and", "WORD c", "OPERATOR <>", "WORD d", "WORD and", "WORD e", "OPERATOR +",
                    "WORD f");
            assertThat(tokens.get(1).is("::")).isTrue();
            assertThat(tokens.get(3).is("::")).isFalse();
            assertThat(tokens.getFirst().is("x")).isFalse();
        }

        @Test
        void numbersInEverySpelling() {
            assertThat(shapes(code("42 1_000 0x1F 0o17 0b101 1.5e-3 .5 1. 3e5 1..2")))
                    .containsExactly("NUMBER 42", "NUMBER 1_000", "NUMBER 0x1F", "NUMBER 0o17", "NUMBER 0b101",
                            "NUMBER 1.5e-3", "NUMBER .5", "NUMBER 1.", "NUMBER 3e5", "NUMBER 1", "PUNCTUATION ..",
                            "NUMBER 2");
        }

        @Test
        void aPositionalParameterIsOneTokenAndNotADollarQuote() {
            assertThat(shapes(code("where a = $1 and b = $23"))).containsExactly("WORD where", "WORD a", "OPERATOR =",
                    "PARAMETER $1", "WORD and", "WORD b", "OPERATOR =", "PARAMETER $23");
        }

        @Test
        void emptyOrBlankTextHasNoCode() {
            assertThat(SqlLexer.lex("").tokens()).isEmpty();
            assertThat(shapes(SqlLexer.lex(" \n\t\u000B ").tokens())).containsExactly("WHITESPACE  \n\t\u000B ");
        }
    }

    @Nested
    class Constants {

        @Test
        void everySpellingOfAStringConstantIsOneToken() {
            assertThat(shapes(code("'a' E'b\\'c' e'd' N'e' B'101' x'1F' U&'\\0066' $$g$$ $t$h$t$")))
                    .containsExactly("STRING 'a'", "STRING E'b\\'c'", "STRING e'd'", "STRING N'e'", "STRING B'101'",
                            "STRING x'1F'", "STRING U&'\\0066'", "STRING $$g$$", "STRING $t$h$t$");
        }

        @Test
        void aPrefixLetterInsideAWordIsPartOfTheWord() {
            assertThat(shapes(code("xe'a' au&'b'"))).containsExactly("WORD xe", "STRING 'a'", "WORD au",
                    "OPERATOR &", "STRING 'b'");
        }

        @Test
        void aStringKeepsDoubledQuotesAndWhatLooksLikeSqlInside() {
            List<Token> tokens = code("select 'it''s -- not /* a comment', x");

            assertThat(shapes(tokens)).containsExactly("WORD select", "STRING 'it''s -- not /* a comment'",
                    "PUNCTUATION ,", "WORD x");
            assertThat(tokens.get(1).value()).isEqualTo("it's -- not /* a comment");
        }

        @Test
        void aBackslashEndsNothingInAStandardStringButEscapesWhenStandardStringsAreOff() {
            assertThat(shapes(code("'a\\' , 'b'"))).containsExactly("STRING 'a\\'", "PUNCTUATION ,", "STRING 'b'");
            // (a b or x before the last quote would start a bit string)
            assertThat(shapes(SqlLexer.lex("'a\\' , 'z'", false).code())).containsExactly("STRING 'a\\' , '",
                    "WORD z", "STRING '");
        }

        @Test
        void aUnicodeEscapeStringTakesItsUescapeClauseIntoTheSameToken() {
            List<Token> tokens = code("U&'d!0061t' /* c */ UESCAPE '!', U&\"d\\0061t\" uescape");

            assertThat(shapes(tokens)).containsExactly("STRING U&'d!0061t' /* c */ UESCAPE '!'", "PUNCTUATION ,",
                    "QUOTED_IDENTIFIER U&\"d\\0061t\"", "WORD uescape");
            assertThat(tokens.get(0).value()).isEqualTo("dat");
            assertThat(tokens.get(2).value()).isEqualTo("dat");
        }

        @Test
        void constantsOnConsecutiveLinesAreOneConstant() {
            List<Token> tokens = code("select 'a' -- c\n  'b', 'c' /* x */\n'd'");

            assertThat(shapes(tokens)).containsExactly("WORD select", "STRING 'a' -- c\n  'b'", "PUNCTUATION ,",
                    "STRING 'c'", "STRING 'd'");
            assertThat(tokens.get(1).value()).isEqualTo("ab");
        }

        @Test
        void dollarQuotesHoldQuotesCommentsAndOtherTagsAndTakeNonAsciiTags() {
            assertThat(shapes(code("select $$it's -- x$$, $fn$ a $x$ 'b $fn$, $é$ ; $é$ from t")))
                    .containsExactly("WORD select", "STRING $$it's -- x$$", "PUNCTUATION ,",
                            "STRING $fn$ a $x$ 'b $fn$", "PUNCTUATION ,", "STRING $é$ ; $é$", "WORD from", "WORD t");
        }

        @Test
        void aQuotedNameKeepsDoubledQuotesAndIsNotAWord() {
            List<Token> tokens = code("select \"a \"\"b\"\" -- c\" from t");

            assertThat(shapes(tokens)).containsExactly("WORD select",
                    "QUOTED_IDENTIFIER \"a \"\"b\"\" -- c\"", "WORD from", "WORD t");
            assertThat(tokens.get(1).value()).isEqualTo("a \"b\" -- c");
        }

        @Test
        void escapesTheServerRefusesHaveNoValue() {
            assertThatThrownBy(() -> code("E'\\0'").getFirst().value()).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> code("E'\\xff'").getFirst().value()).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> code("U&'\\00'").getFirst().value()).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> code("U&'\\D83D'").getFirst().value()).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> code("U&'x' UESCAPE 'a'").getFirst().value())
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Nested
    class Comments {

        @Test
        void aLineCommentRunsToALineFeedOrACarriageReturn() {
            assertThat(shapes(withComments("a -- 'x\nb -- y\rc -- z"))).containsExactly("WORD a", "COMMENT -- 'x", "WORD b",
                    "COMMENT -- y", "WORD c", "COMMENT -- z");
        }

        @Test
        void blockCommentsNest() {
            assertThat(shapes(withComments("a /* x /* 'y */ z */ b"))).containsExactly("WORD a", "COMMENT /* x /* 'y */ z */",
                    "WORD b");
        }

        @Test
        void aCommentMarkerInsideAStringOrNameIsText() {
            assertThat(shapes(code("'/*' \"--\" x"))).containsExactly("STRING '/*'", "QUOTED_IDENTIFIER \"--\"",
                    "WORD x");
        }

        @Test
        void codeLeavesOutCommentsAndWhitespace() {
            assertThat(SqlLexer.lex("a /* b */ -- c\n d").code()).extracting(Token::kind)
                    .containsExactly(Kind.WORD, Kind.WORD);
        }
    }

    @Nested
    class UnclosedText {

        @ParameterizedTest
        @ValueSource(strings = {"select 'abc", "select E'abc\\'", "select \"abc", "select $$abc", "select $t$ abc $u$",
                "select /* a /* b */", "select /*"})
        void anUnclosedConstantNameOrCommentRunsToTheEndAndIsNamed(String sql) {
            SqlLexer.Lexed lexed = SqlLexer.lex(sql);

            assertThat(lexed.problem()).hasValueSatisfying(p -> assertThat(p).contains("never closed"));
            assertThat(lexed.complete()).isEmpty();
            assertThat(lexed.tokens().getLast().end()).isEqualTo(sql.length());
            assertThat(lexed.tokens().getLast().start()).isEqualTo(7);
        }
    }

    private static List<Token> code(String sql) {
        SqlLexer.Lexed lexed = SqlLexer.lex(sql);
        assertThat(lexed.problem()).as(sql).isEmpty();
        return lexed.code();
    }

    private static List<Token> withComments(String sql) {
        return SqlLexer.lex(sql).tokens().stream().filter(t -> t.kind() != Kind.WHITESPACE).toList();
    }

    private static List<String> shapes(List<Token> tokens) {
        return tokens.stream().map(Token::toString).toList();
    }
}
