package io.pgharvest.model.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.pgharvest.model.connection.ConnectionString.Format;
import io.pgharvest.model.connection.ConnectionStringParser.Parsed;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The parser's contract: both libpq forms become the keywords libpq would hold, in text order,
 * and no error message quotes the text (it may hold a password anywhere).
 */
@Tag("fast")
class ConnectionStringParserTest {

    private static final String SECRET = "Zq9secretZq9";
    private static final String PREFIX = "Invalid connection string: ";

    @Nested
    class UriForm {

        @Test
        void partsBecomeLibpqKeywordsInTextOrderAndTheSchemeIsKeptAsWritten() {
            Parsed parsed = ConnectionStringParser.parse("  PostgreSQL://mon:pw@db1:6432/orders?sslmode=require  ");

            assertThat(parsed.format()).isEqualTo(Format.URI);
            assertThat(parsed.scheme()).isEqualTo("PostgreSQL");
            assertThat(parsed.keywords()).containsExactly(entry("user", "mon"), entry("password", "pw"),
                    entry("host", "db1"), entry("port", "6432"), entry("dbname", "orders"),
                    entry("sslmode", "require"));
        }

        @Test
        void severalHostsBecomeOneHostListAndOnePortListWithEmptyEntriesForTheDefault() {
            Parsed parsed = ConnectionStringParser.parse("postgres://db1,[::1]:5433,db%2D3:/x");

            assertThat(parsed.keywords()).containsExactly(entry("host", "db1,::1,db-3"), entry("port", ",5433,"),
                    entry("dbname", "x"));
        }

        @Test
        void noPortAnywhereGivesNoPortKeywordAndNoPathGivesNoDatabase() {
            assertThat(ConnectionStringParser.parse("postgresql://db1,db2").keywords())
                    .containsExactly(entry("host", "db1,db2"));
            assertThat(ConnectionStringParser.parse("postgresql://db1/").keywords())
                    .containsExactly(entry("host", "db1"));
        }

        @Test
        void userInfoWithoutPasswordOrWithAnEmptyOneIsKeptApart() {
            assertThat(ConnectionStringParser.parse("postgresql://mon@h").keywords())
                    .containsExactly(entry("user", "mon"), entry("host", "h"));
            assertThat(ConnectionStringParser.parse("postgresql://mon:@h").keywords())
                    .containsExactly(entry("user", "mon"), entry("password", ""), entry("host", "h"));
            assertThat(ConnectionStringParser.parse("postgresql://:pw@h").keywords())
                    .containsExactly(entry("password", "pw"), entry("host", "h"));
        }

        @Test
        void theLastAtSignEndsTheUserInfoAndTheFirstColonEndsTheUser() {
            assertThat(ConnectionStringParser.parse("postgresql://mon:p@ss:w@h/db").keywords())
                    .containsExactly(entry("user", "mon"), entry("password", "p@ss:w"), entry("host", "h"),
                            entry("dbname", "db"));
        }

        @Test
        void percentEncodingIsDecodedAsUtf8InEveryPartAndPlusStaysAPlus() {
            Parsed parsed = ConnectionStringParser.parse(
                    "postgresql://m%C3%B6n:a+b%26c%3D@h/d%20b?application_name=x%20y&options=-c%20a%3Db");

            assertThat(parsed.keywords()).containsExactly(entry("user", "mön"), entry("password", "a+b&c="),
                    entry("host", "h"), entry("dbname", "d b"), entry("application_name", "x y"),
                    entry("options", "-c a=b"));
        }

        @Test
        void queryParametersOverrideThePartsButKeepTheirPlace() {
            Parsed parsed = ConnectionStringParser.parse("postgresql://u@h1/db?dbname=other&host=h2&user=v");

            assertThat(parsed.keywords()).containsExactly(entry("user", "v"), entry("host", "h2"),
                    entry("dbname", "other"));
        }

        @Test
        void emptyQueryPairsAreSkippedAndSslTrueIsLibpqsSslmodeRequire() {
            assertThat(ConnectionStringParser.parse("postgresql://h?&ssl=true&&connect_timeout=5").keywords())
                    .containsExactly(entry("host", "h"), entry("sslmode", "require"), entry("connect_timeout", "5"));
            assertThat(ConnectionStringParser.parse("postgresql://h?ssl=false").keywords())
                    .containsEntry("ssl", "false");
        }

        @Test
        void aHostlessUriLeavesTheHostToTheQueryOrToTheCaller() {
            assertThat(ConnectionStringParser.parse("postgresql:///db?host=h").keywords())
                    .containsExactly(entry("dbname", "db"), entry("host", "h"));
            assertThat(ConnectionStringParser.parse("postgresql:///db").keywords())
                    .containsExactly(entry("dbname", "db"));
        }
    }

    @Nested
    class KeyValueForm {

        @Test
        void pairsInTextOrderWithWhitespaceAroundTheEqualsSign() {
            Parsed parsed = ConnectionStringParser.parse("host = db1  port=6432\tdbname =orders user= mon");

            assertThat(parsed.format()).isEqualTo(Format.KEY_VALUE);
            assertThat(parsed.scheme()).isNull();
            assertThat(parsed.keywords()).containsExactly(entry("host", "db1"), entry("port", "6432"),
                    entry("dbname", "orders"), entry("user", "mon"));
        }

        @Test
        void quotedValuesHoldSpacesEqualsSignsAndEscapedQuotesAndBackslashes() {
            Parsed parsed = ConnectionStringParser.parse("password='a b=\\'c\\\\' options='-c x=1' host=h");

            assertThat(parsed.keywords()).containsExactly(entry("password", "a b='c\\"), entry("options", "-c x=1"),
                    entry("host", "h"));
        }

        @Test
        void bareValuesTakeBackslashEscapesAndAnEmptyQuotedValueIsKept() {
            assertThat(ConnectionStringParser.parse("password=a\\ b\\'c application_name=''").keywords())
                    .containsExactly(entry("password", "a b'c"), entry("application_name", ""));
        }

        @Test
        void aBareValueMayHoldQuotesAndEqualsSignsAfterItsFirstCharacter() {
            assertThat(ConnectionStringParser.parse("password=a'b=c host=h").keywords())
                    .containsExactly(entry("password", "a'b=c"), entry("host", "h"));
        }

        @Test
        void aLaterKeyReplacesTheValueButKeepsTheFirstPlace() {
            assertThat(ConnectionStringParser.parse("host=a dbname=x host=b").keywords())
                    .containsExactly(entry("host", "b"), entry("dbname", "x"));
        }

        @Test
        void unknownKeysArePassedOnForTheCallerToJudge() {
            assertThat(ConnectionStringParser.parse("host=h no_such_key=1").keywords())
                    .containsEntry("no_such_key", "1");
        }

        @Test
        void textWithoutAUriSchemeIsKeyValueEvenWhenItLooksLikeAnAddress() {
            assertThatThrownBy(() -> ConnectionStringParser.parse("db1:5432/orders"))
                    .isInstanceOf(InvalidConnectionStringException.class)
                    .hasMessage(PREFIX + "missing '=' after the key of key=value pair 1 (quote values that contain spaces:"
                            + " key='a b')");
        }
    }

    @Nested
    class Errors {

        @ParameterizedTest
        @ValueSource(strings = {"", "   ", "\n"})
        void emptyTextIsRefused(String text) {
            assertThatThrownBy(() -> ConnectionStringParser.parse(text)).hasMessage(PREFIX + "it is empty");
            assertThatThrownBy(() -> ConnectionStringParser.parse(null)).hasMessage(PREFIX + "it is empty");
        }

        @Test
        void anUnknownSchemeIsNamedSinceItCannotBeASecret() {
            assertThatThrownBy(() -> ConnectionStringParser.parse("mysql://u:" + SECRET + "@h/db"))
                    .hasMessageStartingWith(PREFIX + "unknown URI scheme 'mysql'").hasMessageNotContaining(SECRET);
        }

        @Test
        void uriErrorsNamePositionsNeverText() {
            List<String> texts = List.of(
                    "postgresql://u:" + SECRET + "/x@h/db",          // '/' in the password ends the authority
                    "postgresql://u:" + SECRET + "%zz@h/db",          // bad percent-encoding
                    "postgresql://u:" + SECRET + "%C3%28@h/db",       // not UTF-8 after decoding
                    "postgresql://h1,[::1" + SECRET + "/db",          // '[' without ']'
                    "postgresql://[::1]x" + SECRET + "/db",           // text after ']'
                    "postgresql://h/db?" + SECRET);                   // query pair without '='
            for (String text : texts) {
                assertThatThrownBy(() -> ConnectionStringParser.parse(text))
                        .isInstanceOf(InvalidConnectionStringException.class)
                        .hasMessageNotContaining(SECRET);
            }
            assertThatThrownBy(() -> ConnectionStringParser.parse(texts.get(0)))
                    .hasMessageStartingWith(PREFIX + "the port of host 1 of the URI is not a number");
            assertThatThrownBy(() -> ConnectionStringParser.parse(texts.get(1)))
                    .hasMessage(PREFIX + "invalid percent-encoding in the password");
            assertThatThrownBy(() -> ConnectionStringParser.parse(texts.get(2)))
                    .hasMessage(PREFIX + "invalid UTF-8 in the password after percent-decoding");
            assertThatThrownBy(() -> ConnectionStringParser.parse(texts.get(3)))
                    .hasMessage(PREFIX + "'[' without ']' in host 2 of the URI");
            assertThatThrownBy(() -> ConnectionStringParser.parse(texts.get(4)))
                    .hasMessage(PREFIX + "unexpected text after ']' in host 1 of the URI");
            assertThatThrownBy(() -> ConnectionStringParser.parse(texts.get(5)))
                    .hasMessage(PREFIX + "URI query parameter 1 has no '='");
        }

        @Test
        void keyValueErrorsNameLibpqKeywordsOnlyNeverAnUnknownKeyOrAValue() {
            assertThatThrownBy(() -> ConnectionStringParser.parse("host=h password='" + SECRET))
                    .hasMessage(PREFIX + "unterminated quoted value of 'password'");
            assertThatThrownBy(() -> ConnectionStringParser.parse("host=h password='" + SECRET + "\\"))
                    .hasMessage(PREFIX + "unterminated quoted value of 'password'");
            assertThatThrownBy(() -> ConnectionStringParser.parse("host=h password='a'" + SECRET))
                    .hasMessage(PREFIX + "text directly after the quoted value of 'password' (escape quotes inside values"
                            + " as \\')");
            assertThatThrownBy(() -> ConnectionStringParser.parse("host=h password=a " + SECRET))
                    .hasMessage(PREFIX + "missing '=' after the key of key=value pair 3 (quote values that contain spaces:"
                            + " key='a b')");
            assertThatThrownBy(() -> ConnectionStringParser.parse("host=h =" + SECRET))
                    .hasMessage(PREFIX + "key=value pair 2 has no key");
            assertThatThrownBy(() -> ConnectionStringParser.parse("host=h " + SECRET + "='x"))
                    .hasMessage(PREFIX + "unterminated quoted value of the key of key=value pair 2");
        }
    }
}
