package io.pgharvest.kind.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A metric with question marks, escaped, prepares with pgjdbc and returns what the same text
 * returns run as a plain statement (where pgjdbc has no placeholders): operators reach the server
 * as written, question marks in constants, names and comments stay as they are.
 */
class QuestionMarksTest {

    private static Connection connection;

    @BeforeAll
    static void connect() throws SQLException {
        TestPostgres pg = TestPostgres.shared();
        pg.createDatabase("question_marks_test");
        connection = pg.connect("question_marks_test");
    }

    @AfterAll
    static void close() throws SQLException {
        connection.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "select '{\"a\": 1}'::jsonb ? 'a' as v",
        "select E'it\\'s ?' as v, '{\"a\": 1}'::jsonb ?| array['a'] as w",
        "select $é$ ? $é$ as v, '{\"a\": 1}'::jsonb ?& array['a'] as w",
        "select U&'\\003F?' as v /* ? /* nested ? */ ? */, '[1]'::jsonb ? '1' as w",
        "select 'x' as v -- ?\r, '{\"a\": 1}'::jsonb ? 'a' as w",
        "select \"?\" from (select 1 as \"?\") s",
    })
    void anEscapedMetricPreparesAndReadsWhatThePlainTextReads(String sql) throws SQLException {
        String escaped = QuestionMarks.escape(sql, true);

        assertThat(prepared(escaped)).isEqualTo(plain(sql));
    }

    @Test
    void withStandardConformingStringsOffABackslashKeepsAQuestionMarkInItsConstant() throws SQLException {
        String sql = "select 'it\\'s ?' as v, '{\"a\": 1}'::jsonb ? 'a' as w";
        try (Statement s = connection.createStatement()) {
            s.execute("set standard_conforming_strings = off");
            s.execute("set escape_string_warning = off");
            assertThat(prepared(QuestionMarks.escape(sql, false))).isEqualTo(plain(sql)).containsExactly("it's ?", "t");
        } finally {
            try (Statement s = connection.createStatement()) {
                s.execute("reset standard_conforming_strings");
            }
        }
    }

    @Test
    void textWithoutQuestionMarksIsReturnedAsItIs() {
        String sql = "select 1 as v";
        assertThat(QuestionMarks.escape(sql, true)).isSameAs(sql);
    }

    private static List<String> prepared(String sql) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement(sql); ResultSet rs = p.executeQuery()) {
            return row(rs);
        }
    }

    private static List<String> plain(String sql) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return row(rs);
        }
    }

    private static List<String> row(ResultSet rs) throws SQLException {
        rs.next();
        var values = new ArrayList<String>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
            values.add(rs.getString(i));
        }
        return values;
    }
}
