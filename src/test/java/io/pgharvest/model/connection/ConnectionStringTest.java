package io.pgharvest.model.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.pgharvest.model.connection.ConnectionString.Format;
import io.pgharvest.model.connection.ConnectionString.HostPort;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.Driver;
import org.postgresql.PGProperty;

@Tag("fast")
class ConnectionStringTest {

    private static final String SECRET = "Hunter2xyz";

    @Nested
    class Uri {

        @Test
        void readsUserPasswordHostPortAndDatabase() {
            ConnectionString conn = ConnectionString.parse("postgresql://monitor:s3cret@db1:6432/orders");

            assertThat(conn.format()).isEqualTo(Format.URI);
            assertThat(conn.hosts()).containsExactly(new HostPort("db1", 6432));
            assertThat(conn.user()).isEqualTo("monitor");
            assertThat(conn.password()).contains("s3cret");
            assertThat(conn.database()).isEqualTo("orders");
            assertThat(conn.parameters()).isEmpty();
        }

        @Test
        void percentDecodesUserPasswordAndDatabase() {
            ConnectionString conn = ConnectionString.parse(
                    "postgresql://mon%40itor:p%40ss%2Fw%3Ard%20%C3%A9@db1/my%20db");

            assertThat(conn.user()).isEqualTo("mon@itor");
            assertThat(conn.password()).contains("p@ss/w:rd é");
            assertThat(conn.database()).isEqualTo("my db");
        }

        @Test
        void keepsCharactersOutsideTheBasicPlaneNextToPercentEscapes() {
            ConnectionString conn = ConnectionString.parse("postgresql://mon:p%41\uD83D\uDE00@db1/db");

            assertThat(conn.password()).contains("pA\uD83D\uDE00");
        }

        @Test
        void plusInPasswordIsAPlusNotASpace() {
            assertThat(ConnectionString.parse("postgresql://u:a+b@h/db").password()).contains("a+b");
        }

        @Test
        void defaultsToPort5432AndTheUserNameAsDatabase() {
            ConnectionString conn = ConnectionString.parse("postgres://monitor@db1");

            assertThat(conn.hosts()).containsExactly(new HostPort("db1", 5432));
            assertThat(conn.database()).isEqualTo("monitor");
            assertThat(conn.password()).isEmpty();
        }

        @Test
        void defaultsToUserPostgresWithoutUserInfo() {
            ConnectionString conn = ConnectionString.parse("postgresql://db1/");

            assertThat(conn.user()).isEqualTo("postgres");
            assertThat(conn.database()).isEqualTo("postgres");
        }

        @Test
        void readsSeveralHostsWithTheirOwnPorts() {
            ConnectionString conn = ConnectionString.parse("postgresql://u@h1:5432,h2:5433,h3/db");

            assertThat(conn.hosts()).containsExactly(
                    new HostPort("h1", 5432), new HostPort("h2", 5433), new HostPort("h3", 5432));
        }

        @Test
        void readsBracketedIpv6Addresses() {
            ConnectionString conn = ConnectionString.parse("postgresql://u@[::1]:5433,[fe80::2]/db");

            assertThat(conn.hosts()).containsExactly(new HostPort("::1", 5433), new HostPort("fe80::2", 5432));
            assertThat(conn.jdbcUrl()).isEqualTo("jdbc:postgresql://[::1]:5433,[fe80::2]:5432/db");
            assertThat(conn.render()).isEqualTo("postgresql://u@[::1]:5433,[fe80::2]:5432/db");
        }

        @Test
        void keepsQueryParametersInOrder() {
            ConnectionString conn = ConnectionString.parse(
                    "postgresql://u@h/db?sslmode=require&application_name=pg%20harvest&zz_custom=1&connect_timeout=7");

            assertThat(conn.parameters()).containsExactly(entry("sslmode", "require"),
                    entry("application_name", "pg harvest"), entry("zz_custom", "1"), entry("connect_timeout", "7"));
            assertThat(conn.unsupportedParameters()).containsExactly("zz_custom");
        }

        @Test
        void queryParametersCanGiveHostPortUserPasswordAndDatabase() {
            ConnectionString conn = ConnectionString.parse(
                    "postgresql:///?host=h1,h2&port=5433&user=u&password=pw&dbname=d");

            assertThat(conn.hosts()).containsExactly(new HostPort("h1", 5433), new HostPort("h2", 5433));
            assertThat(conn.user()).isEqualTo("u");
            assertThat(conn.password()).contains("pw");
            assertThat(conn.database()).isEqualTo("d");
            assertThat(conn.parameters()).isEmpty();
        }

        @Test
        void sslTrueMeansSslmodeRequireAsInLibpq() {
            assertThat(ConnectionString.parse("postgresql://h/db?ssl=true").parameters())
                    .containsExactly(entry("sslmode", "require"));
        }
    }

    @Nested
    class KeyValue {

        @Test
        void readsQuotedValuesWithEscapedQuotes() {
            ConnectionString conn = ConnectionString.parse(
                    "host=db1 port=5432 dbname=orders user=monitor password='se cr\\'et' sslmode=require");

            assertThat(conn.format()).isEqualTo(Format.KEY_VALUE);
            assertThat(conn.hosts()).containsExactly(new HostPort("db1", 5432));
            assertThat(conn.database()).isEqualTo("orders");
            assertThat(conn.user()).isEqualTo("monitor");
            assertThat(conn.password()).contains("se cr'et");
            assertThat(conn.parameters()).containsExactly(entry("sslmode", "require"));
        }

        @Test
        void allowsWhitespaceAroundEquals() {
            ConnectionString conn = ConnectionString.parse("  host = db1\tdbname= orders   user =monitor ");

            assertThat(conn.hosts()).containsExactly(new HostPort("db1", 5432));
            assertThat(conn.database()).isEqualTo("orders");
            assertThat(conn.user()).isEqualTo("monitor");
        }

        @Test
        void backslashEscapesInBareAndQuotedValues() {
            ConnectionString conn = ConnectionString.parse("host=h password=a\\ b\\\\c options='x\\\\y'");

            assertThat(conn.password()).contains("a b\\c");
            assertThat(conn.parameters()).containsExactly(entry("options", "x\\y"));
        }

        @Test
        void onePortAppliesToAllHosts() {
            assertThat(ConnectionString.parse("host=h1,h2 port=6000").hosts())
                    .containsExactly(new HostPort("h1", 6000), new HostPort("h2", 6000));
            assertThat(ConnectionString.parse("host=h1,h2 port=6000,6001").hosts())
                    .containsExactly(new HostPort("h1", 6000), new HostPort("h2", 6001));
        }

        @Test
        void laterKeyOverridesEarlierOne() {
            assertThat(ConnectionString.parse("host=a host=b").hosts()).containsExactly(new HostPort("b", 5432));
        }

        @Test
        void quotedEmptyValueIsKept() {
            assertThat(ConnectionString.parse("host=h options=''").parameters()).containsExactly(entry("options", ""));
        }
    }

    @Nested
    class Rejection {

        @ParameterizedTest
        @NullAndEmptySource
        @ValueSource(strings = {"   ", "\t\n"})
        void emptyText(String text) {
            assertThatThrownBy(() -> ConnectionString.parse(text))
                    .isInstanceOf(InvalidConnectionStringException.class)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("empty");
        }

        /** The issue 26 smuggle: URL syntax in a host reached another port with other settings. */
        @ParameterizedTest
        @ValueSource(strings = {"host=127.0.0.1/postgres?PGPORT=5999&options=-c%20x%3D1&x= password=" + SECRET,
                "host='a b' password=" + SECRET, "host=h&x=1 password=" + SECRET, "host=h=1 password=" + SECRET,
                "postgresql://u:" + SECRET + "@h%3Fx%3D1/db"})
        void hostsHoldOnlyHostCharacters(String text) {
            assertRejected(text, "may only hold letters, digits");
        }

        @ParameterizedTest
        @ValueSource(strings = {"-c default_transaction_read_only=off", "-cstatement_timeout=0",
                "--lock-timeout=0", "-c work_mem=1MB -c Search_Path=evil", "-c\\ role=x",
                "-c idle_in_transaction_session_timeout=0", "-c standard_conforming_strings=off",
                "-c session_authorization=postgres"})
        void optionsMayNotSetWhatPgharvestRelies(String options) {
            assertThatThrownBy(() -> ConnectionString.parse("host=h password=" + SECRET + " options='" + options + "'"))
                    .isInstanceOf(InvalidConnectionStringException.class)
                    .hasMessageContaining("options must not set")
                    .hasMessageNotContaining(SECRET);
        }

        @Test
        void optionsMaySetOtherSettings() {
            assertThat(ConnectionString.parse("host=h options='-c work_mem=64MB --jit=off'").parameters())
                    .containsEntry("options", "-c work_mem=64MB --jit=off");
        }

        @Test
        void unknownSchemeIsNamed() {
            assertRejected("mysql://u:" + SECRET + "@h/db", "unknown URI scheme 'mysql'");
            assertRejected("jdbc:postgresql://h/db?password=" + SECRET, "unknown URI scheme 'jdbc:postgresql'");
        }

        @Test
        void unparsablePort() {
            assertRejected("postgresql://u:" + SECRET + "@h:54x2/db", "port of host 1");
            assertRejected("postgresql://u:" + SECRET + "@h1,h2:70000/db", "port of host 2");
            assertRejected("host=h port=abc password=" + SECRET, "port of host 1");
        }

        @Test
        void passwordWithUnencodedSlashDoesNotLeakThroughThePortError() {
            // the authority ends at '/', so "u:Hunter2" is read as host "u" with port "Hunter2"
            assertRejected("postgresql://u:" + SECRET + "/x@h/db", "percent-encode");
        }

        @Test
        void unterminatedQuote() {
            assertRejected("host=h password='" + SECRET + " and more", "unterminated quoted value of 'password'");
            assertRejected("host=h password='" + SECRET + "\\'", "unterminated quoted value of 'password'");
        }

        @Test
        void unquotedSpaceInPasswordIsReportedWithoutQuotingIt() {
            assertRejected("host=h password=" + SECRET + " " + SECRET + "tail dbname=x", "missing '='");
        }

        @Test
        void missingHost() {
            assertRejected("dbname=orders user=u password=" + SECRET, "no host");
            assertRejected("postgresql://u:" + SECRET + "@/db", "no host");
            assertRejected("postgresql://u:" + SECRET + "@", "no host");
            assertRejected("host=h1,,h2 password=" + SECRET, "host 2 is empty");
        }

        @Test
        void badPercentEncodingInPasswordNamesThePasswordOnly() {
            assertRejected("postgresql://u:" + SECRET + "%zz@h/db", "invalid percent-encoding in the password");
            assertRejected("postgresql://u:" + SECRET + "%C3@h/db", "invalid UTF-8 in the password");
        }

        @Test
        void mismatchedPortList() {
            assertRejected("host=h1,h2,h3 port=1,2 password=" + SECRET, "2 ports given for 3 hosts");
        }

        @Test
        void unixSocketHost() {
            assertRejected("host=/var/run/postgresql password=" + SECRET, "Unix-domain socket");
            assertRejected("postgresql://u:" + SECRET + "@%2Fvar%2Frun%2Fpostgresql/db", "Unix-domain socket");
        }

        @Test
        void invalidValueOfATranslatedParameter() {
            assertRejected("host=h sslmode=requir password=" + SECRET, "'requir' is not a valid sslmode");
            assertRejected("postgresql://u:" + SECRET + "@h/db?target_session_attrs=writable",
                    "'writable' is not a valid target_session_attrs");
            assertRejected("host=h connect_timeout=5s password=" + SECRET, "connect_timeout");
        }

        @Test
        void queryParameterWithoutEquals() {
            assertRejected("postgresql://u:" + SECRET + "@h/db?sslmode", "URI query parameter 1 has no '='");
        }

        private static void assertRejected(String text, String expectedMessagePart) {
            assertThatThrownBy(() -> ConnectionString.parse(text))
                    .isInstanceOf(InvalidConnectionStringException.class)
                    .hasMessageContaining(expectedMessagePart)
                    .hasMessageNotContaining(SECRET)
                    .hasMessageNotContaining(SECRET.substring(0, 5));
        }
    }

    @Nested
    class Rendering {

        @Test
        void uriStaysAUriWithThePasswordPercentEncoded() {
            ConnectionString conn = ConnectionString.parse("postgresql://u:p%40ss%20w@h/db?sslmode=require");

            assertThat(conn.render()).isEqualTo("postgresql://u:p%40ss%20w@h:5432/db?sslmode=require");
        }

        @Test
        void keyValueStaysKeyValueQuotingWhereNeeded() {
            String text = "host=db1 port=5432 dbname=orders user=monitor password='se cr\\'et' sslmode=require";

            assertThat(ConnectionString.parse(text).render()).isEqualTo(text);
            assertThat(ConnectionString.parse("host=h password=a\\\\b options=''").render())
                    .isEqualTo("host=h port=5432 password='a\\\\b' options=''");
        }

        @Test
        void keyValueKeepsOnePortPerHostWhenTheyDiffer() {
            assertThat(ConnectionString.parse("host=h1,h2 port=1,2").render()).isEqualTo("host=h1,h2 port=1,2");
        }

        @Test
        void maskedReplacesThePasswordOnly() {
            assertThat(ConnectionString.parse("postgresql://u:" + SECRET + "@h/db?sslmode=require").masked())
                    .isEqualTo("postgresql://u:********@h:5432/db?sslmode=require");
            assertThat(ConnectionString.parse("host=h user=u password='" + SECRET + " x' sslmode=require").masked())
                    .isEqualTo("host=h port=5432 user=u password=******** sslmode=require");
        }

        @Test
        void maskedHidesAPasswordGivenAsQueryParameterAndTheSslKeyPassword() {
            String masked = ConnectionString.parse(
                    "postgresql://u@h/db?password=" + SECRET + "&sslpassword=" + SECRET + "k").masked();

            assertThat(masked).doesNotContain(SECRET)
                    .isEqualTo("postgresql://u:********@h:5432/db?sslpassword=********");
        }

        @Test
        void maskedWithoutPasswordShowsNoMask() {
            assertThat(ConnectionString.parse("host=h user=u").masked()).isEqualTo("host=h port=5432 user=u");
        }

        @Test
        void toStringIsMasked() {
            ConnectionString conn = ConnectionString.parse("host=h password=" + SECRET);

            assertThat(conn.toString()).isEqualTo(conn.masked()).doesNotContain(SECRET);
        }

        @Test
        void withPasswordReplacesOrRemovesIt() {
            ConnectionString conn = ConnectionString.parse("postgresql://u:old@h/db");

            ConnectionString changed = conn.withPassword("n3w p@ss");
            assertThat(changed.render()).isEqualTo("postgresql://u:n3w%20p%40ss@h:5432/db");
            assertThat(ConnectionString.parse(changed.render()).password()).contains("n3w p@ss");
            assertThat(conn.withPassword(null).render()).isEqualTo("postgresql://u@h:5432/db");
            assertThat(conn.password()).contains("old");
        }

        @Test
        void passwordWithoutUserRendersAsEmptyUser() {
            ConnectionString conn = ConnectionString.parse("postgresql://h/db?password=pw");

            assertThat(conn.render()).isEqualTo("postgresql://:pw@h:5432/db");
            assertThat(ConnectionString.parse(conn.render())).isEqualTo(conn);
        }

        @ParameterizedTest
        @ValueSource(strings = {
                "postgresql://monitor:s3cret@db1:6432/orders",
                "postgres://u@h",
                "postgresql://m%C3%BC:p%40%3A%2F%3F%23%26%3D%25%2B%20x@[::1]:5433,h2,h3:7/d%20b?a=a%26b&x=%3D",
                "postgresql:///?host=h1,h2&port=5433,5434&user=u&password=pw&dbname=d&sslmode=verify-full",
                "host=db1 port=5432 dbname=orders user=monitor password='se cr\\'et' sslmode=require",
                "host=h1,h2 port=1,2 password='\\\\ back\\\\slash' options='-c work_mem=64MB'",
                "host=::1 user='ü s' password=''",
                "host=h application_name=pgharvest unknown_key='a b'",
        })
        void parseOfRenderGivesTheSameConnectionString(String text) {
            ConnectionString conn = ConnectionString.parse(text);

            ConnectionString again = ConnectionString.parse(conn.render());

            assertThat(again).isEqualTo(conn).hasSameHashCodeAs(conn);
            assertThat(again.render()).isEqualTo(conn.render());
            assertThat(again.format()).isEqualTo(conn.format());
        }
    }

    @Nested
    class Jdbc {

        @Test
        void urlHasHostsAndDatabaseButNoCredentials() throws SQLException {
            ConnectionString conn = ConnectionString.parse(
                    "postgresql://u:" + SECRET + "@h1:5432,h2:5433/my%20db?sslmode=require");

            String url = conn.jdbcUrl();

            assertThat(url).isEqualTo("jdbc:postgresql://h1:5432,h2:5433/my%20db");
            Properties parsedByDriver = Driver.parseURL(url, new Properties());
            assertThat(parsedByDriver.getProperty(PGProperty.PG_DBNAME.getName())).isEqualTo("my db");
            assertThat(parsedByDriver.getProperty(PGProperty.PG_HOST.getName())).isEqualTo("h1,h2");
            assertThat(parsedByDriver.getProperty(PGProperty.PG_PORT.getName())).isEqualTo("5432,5433");
        }

        @Test
        void connectTimeoutIsReadOnceAndBoundsAnAttemptOnlyWhenShorter() {
            ConnectionString seven = ConnectionString.parse("host=h connect_timeout=7");
            assertThat(seven.connectTimeout()).contains(Duration.ofSeconds(7));
            assertThat(seven.connectTimeoutWithin(Duration.ofSeconds(10))).isEqualTo(Duration.ofSeconds(7));
            assertThat(seven.connectTimeoutWithin(Duration.ofMillis(2500))).isEqualTo(Duration.ofMillis(2500));
            // 0 is libpq's "no limit": pgharvest's own bound applies, as when the parameter is absent.
            ConnectionString none = ConnectionString.parse("host=h connect_timeout=0");
            assertThat(none.connectTimeout()).isEmpty();
            assertThat(none.connectTimeoutWithin(Duration.ofSeconds(5))).isEqualTo(Duration.ofSeconds(5));
            assertThat(ConnectionString.parse("host=h").connectTimeoutWithin(Duration.ofSeconds(5)))
                    .isEqualTo(Duration.ofSeconds(5));
            assertThat(seven.withDatabase("other").connectTimeout()).contains(Duration.ofSeconds(7));
        }

        @Test
        void propertiesCarryCredentialsAndTranslatedParameters() {
            ConnectionString conn = ConnectionString.parse("host=h user=monitor password='p w' sslmode=verify-full "
                    + "sslrootcert=/etc/ca.pem sslcert=/c.crt sslkey=/c.key connect_timeout=7 application_name=pgh "
                    + "options='-c work_mem=8MB' keepalives=0 keepalives_idle=30 hostaddr=10.0.0.1");

            Properties props = conn.jdbcProperties();

            assertThat(props).containsOnly(entry("user", "monitor"), entry("password", "p w"),
                    entry("sslmode", "verify-full"), entry("sslrootcert", "/etc/ca.pem"), entry("sslcert", "/c.crt"),
                    entry("sslkey", "/c.key"), entry("connectTimeout", "7"), entry("ApplicationName", "pgh"),
                    entry("options", "-c work_mem=8MB"), entry("tcpKeepAlive", "false"));
            assertThat(conn.unsupportedParameters()).containsExactly("keepalives_idle", "hostaddr");
        }

        @Test
        void propertiesUseDefaultUserAndNoPasswordWhenNoneGiven() {
            assertThat(ConnectionString.parse("host=h").jdbcProperties()).containsOnly(entry("user", "postgres"));
        }

        @ParameterizedTest
        @CsvSource({
                "any, any",
                "read-write, primary",
                "primary, primary",
                "read-only, secondary",
                "standby, secondary",
                "prefer-standby, preferSecondary",
        })
        void targetSessionAttrsBecomesTargetServerType(String libpq, String pgjdbc) {
            ConnectionString conn = ConnectionString.parse("host=h target_session_attrs=" + libpq);

            assertThat(conn.jdbcProperties().getProperty("targetServerType")).isEqualTo(pgjdbc);
        }

        @Test
        void applicationNameWinsOverFallbackApplicationName() {
            assertThat(ConnectionString.parse("host=h application_name=a fallback_application_name=f")
                    .jdbcProperties().getProperty("ApplicationName")).isEqualTo("a");
            assertThat(ConnectionString.parse("host=h fallback_application_name=f")
                    .jdbcProperties().getProperty("ApplicationName")).isEqualTo("f");
        }

        @Test
        void loadBalanceHostsRandomEnablesPgjdbcLoadBalancing() {
            assertThat(ConnectionString.parse("host=h1,h2 load_balance_hosts=random")
                    .jdbcProperties().getProperty("loadBalanceHosts")).isEqualTo("true");
        }
    }
}
