package io.pgharvest.model.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.sql.SqlLexer.Kind;
import io.pgharvest.model.sql.SqlLexer.Token;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The lexer against PostgreSQL's own reading of the hard cases: what a constant evaluates to,
 * what a quoted name names, and whether a text is one statement, asked of a real server.
 *
 * <p>How the server is asked without pgjdbc reading the text first: the text travels as a bind
 * parameter into a PL/pgSQL function that opens a cursor on it ({@code OPEN ... FOR EXECUTE}),
 * which the server refuses for a text of several statements ("cannot open multi-query plan as
 * cursor"); a constant's value is asked for the same way ({@code EXECUTE 'select (' || constant
 * || ')::text'}). pgjdbc's own reading differs: it takes {@code E'a'} newline {@code '\''} for an
 * unclosed constant, where the server continues the E'' constant.
 */
class SqlLexerAgreesWithPostgresTest {

    private static final String DATABASE = "sql_lexer_test";
    private static final String ONE_STATEMENT = "one statement";

    private static Connection connection;

    @BeforeAll
    static void connect() throws SQLException {
        TestPostgres pg = TestPostgres.shared();
        pg.createDatabase(DATABASE);
        connection = pg.connect(DATABASE);
        try (Statement s = connection.createStatement()) {
            s.execute("""
                    create or replace function reading_of(sql text) returns text language plpgsql as $f$
                    declare c refcursor;
                    begin
                      open c for execute sql;
                      close c;
                      return 'one statement';
                    exception when others then
                      return sqlerrm;
                    end $f$""");
            s.execute("""
                    create or replace function value_of(constant text) returns text language plpgsql as $f$
                    declare v text;
                    begin
                      execute 'select (' || constant || e'\n)::text' into v;
                      return v;
                    end $f$""");
        }
    }

    @AfterAll
    static void close() throws SQLException {
        connection.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "'it''s'",
        // (no \\v: a vertical tab from PostgreSQL 17, the letter v before; the lexer reads it as 17 does)
        "E'it\\'s \\\\ \\n\\t\\b\\f\\r \\x41\\101\\u00e9\\U0001F600 \\q'",
        "e'\\xc3\\xa9 \\303\\251'",
        "U&'d\\0061t\\+000061 \\\\'",
        "U&'d!0061t!+01F600 !!' UESCAPE '!'",
        "u&'\\D83D\\DE00'",
        "U&'x' /* between */ UESCAPE\n'#'",
        "'a'\n'b'",
        "'a' -- comment\r\n  'b'\n-- another\n'c'",
        "E'a\\n'\n'\\''",
        "N'national'",
        "$é$ it's $ $é $é$",
        "$ŝtag$ /* not a comment */ $ŝ$ $ŝtag$",
        "$$a$b$$",
        "$_1$x$_1$",
        "B'1010'",
    })
    void aConstantHasTheValueTheServerGivesIt(String constant) throws SQLException {
        Token token = onlyToken(constant, true);

        assertThat(token.kind()).isEqualTo(Kind.STRING);
        assertThat(token.value()).isEqualTo(serverValue(constant));
    }

    @Test
    void withStandardConformingStringsOffAPlainConstantTakesBackslashEscapes() throws SQLException {
        String constant = "'it\\'s \\\\ \\x41'";
        try (Statement s = connection.createStatement()) {
            s.execute("set standard_conforming_strings = off");
            s.execute("set escape_string_warning = off");
            assertThat(onlyToken(constant, false).value()).isEqualTo(serverValue(constant)).isEqualTo("it's \\ A");
            assertThat(reading("select 'a\\'; select 1 --' as x")).isEqualTo(ONE_STATEMENT);
            assertThat(statements("select 'a\\'; select 1 --' as x", false)).isEqualTo(1);
        } finally {
            try (Statement s = connection.createStatement()) {
                s.execute("reset standard_conforming_strings");
            }
        }
        assertThat(reading("select 'a\\'; select 1 --' as x")).isNotEqualTo(ONE_STATEMENT);
        assertThat(statements("select 'a\\'; select 1 --' as x", true)).isEqualTo(2);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "U&\"d\\0061t\"",
        "U&\"d!0061t!!\" UESCAPE '!'",
        "\"a \"\"quoted\"\" Name\"",
        "\"größe\"",
    })
    void aQuotedNameNamesWhatTheServerNames(String name) throws SQLException {
        Token token = onlyToken(name, true);

        assertThat(token.kind()).isEqualTo(Kind.QUOTED_IDENTIFIER);
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("select 1 as " + name)) {
            assertThat(token.value()).isEqualTo(rs.getMetaData().getColumnLabel(1));
        }
    }

    @Test
    void anUnquotedNameIsFoldedInItsAsciiLettersOnly() throws SQLException {
        Token token = onlyToken("ÉtÉ_Ab", true);
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("select 1 as ÉtÉ_Ab")) {
            assertThat(token.value()).isEqualTo(rs.getMetaData().getColumnLabel(1)).isEqualTo("ÉtÉ_ab");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "select 1 as a -- x\r; select 2",
        "select 1 as a -- x\n; select 2",
        "select 1 as a /* x /* nested */ ; */ ; select 2",
        "select $é$;$é$ as a; select 2",
        "select $é$;$é$ as a",
        "select $a$ $b$;$b$ $a$ as a",
        "select E'\\';' as a",
        "select U&'\\0061;' UESCAPE '\\' as a",
        "select U&\"a;\" from (select 1 as \"a;\") s",
        "select 'a\\'; select 1 --' as x",
        "select 'a'\n';' as x",
        "select 1 as a /* ; */",
        "select 1 as a --; select 2",
        "select 1 as a; -- end",
    })
    void aTextIsOneStatementWhenTheServerReadsOne(String sql) throws SQLException {
        int ours = statements(sql, true);
        String server = reading(sql);

        assertThat(ours == 1).as("server: " + server + ", lexer: " + ours + " statements")
                .isEqualTo(server.equals(ONE_STATEMENT));
        if (ours > 1) {
            assertThat(server).contains("multi-query");
        }
    }

    /** Statements as the lexer splits them: stretches of code between semicolons. */
    private static int statements(String sql, boolean standardStrings) {
        SqlLexer.Lexed lexed = SqlLexer.lex(sql, standardStrings);
        assertThat(lexed.problem()).as(sql).isEmpty();
        int count = 0;
        boolean inStatement = false;
        for (Token token : lexed.code()) {
            if (token.is(";")) {
                inStatement = false;
            } else if (!inStatement) {
                inStatement = true;
                count++;
            }
        }
        return count;
    }

    private static Token onlyToken(String text, boolean standardStrings) {
        SqlLexer.Lexed lexed = SqlLexer.lex(text, standardStrings);
        assertThat(lexed.problem()).as(text).isEmpty();
        assertThat(lexed.code()).as(text).hasSize(1);
        return lexed.code().getFirst();
    }

    private static String serverValue(String constant) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement("select value_of(?)")) {
            p.setString(1, constant);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    private static String reading(String sql) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement("select reading_of(?)")) {
            p.setString(1, sql);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }
}
