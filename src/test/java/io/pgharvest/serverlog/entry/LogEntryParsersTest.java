package io.pgharvest.serverlog.entry;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The three log formats read into entries: complete entries only, multi-line entries whole, bounded. */
class LogEntryParsersTest {

    private static final String CSV_RECORD = "2026-12-02 05:37:01.123 UTC,\"alice\",\"shop\",4242,\"10.0.0.7:51234\","
            + "6750f1a5.1092,3,\"SELECT\",2026-12-02 05:36:00 UTC,3/7,0,ERROR,22P02,"
            + "\"invalid input syntax for type integer: \"\"4111-1111\"\"\",\"row \"\"contents\"\"\nsecond line\",,,,,"
            + "\"select $1::int\",8,,\"psql\",\"client backend\",,-8471203490218741234\n";

    @Test
    void csvRecordsAreReadWithQuotedFieldsOverSeveralLines() {
        List<LogEntry> entries = new ArrayList<>();
        byte[] data = (CSV_RECORD + CSV_RECORD.substring(0, 40)).getBytes(StandardCharsets.UTF_8);

        int consumed = new CsvLogParser().parse(data, data.length, false, entries::add);

        assertThat(consumed).isEqualTo(CSV_RECORD.getBytes(StandardCharsets.UTF_8).length);
        LogEntry entry = entries.getFirst();
        assertThat(entries).hasSize(1);
        assertThat(entry.time()).isEqualTo(Instant.parse("2026-12-02T05:37:01.123Z"));
        assertThat(entry.user()).isEqualTo("alice");
        assertThat(entry.database()).isEqualTo("shop");
        assertThat(entry.pid()).isEqualTo(4242);
        assertThat(entry.clientAddress()).isEqualTo("10.0.0.7");
        assertThat(entry.severity()).isEqualTo("ERROR");
        assertThat(entry.sqlState()).isEqualTo("22P02");
        assertThat(entry.sqlStateClass()).isEqualTo("22");
        assertThat(entry.message()).isEqualTo("invalid input syntax for type integer: \"4111-1111\"");
        assertThat(entry.detail()).isEqualTo("row \"contents\"\nsecond line");
        assertThat(entry.statement()).isEqualTo("select $1::int");
        assertThat(entry.application()).isEqualTo("psql");
        assertThat(entry.backendType()).isEqualTo("client backend");
        assertThat(entry.queryId()).isEqualTo(-8471203490218741234L);
    }

    @Test
    void jsonRecordsAreReadLineByLineAndAnUnfinishedLineWaits() {
        String line = "{\"timestamp\":\"2026-12-02 05:37:01.123 UTC\",\"user\":\"bob\",\"dbname\":\"shop\",\"pid\":77,"
                + "\"remote_host\":\"[local]\",\"error_severity\":\"LOG\",\"message\":\"temporary file: path "
                + "\\\"base/pgsql_tmp/pgsql_tmp77.0\\\", size 1400000\",\"statement\":\"select * from t order by 1\","
                + "\"backend_type\":\"client backend\",\"query_id\":1234567}\n";
        List<LogEntry> entries = new ArrayList<>();
        byte[] data = (line + "{\"timestamp\":").getBytes(StandardCharsets.UTF_8);

        int consumed = new JsonLogParser().parse(data, data.length, true, entries::add);

        assertThat(consumed).isEqualTo(line.getBytes(StandardCharsets.UTF_8).length);
        assertThat(entries).singleElement().satisfies(entry -> {
            assertThat(entry.severity()).isEqualTo("LOG");
            assertThat(entry.message()).startsWith("temporary file: path \"base/pgsql_tmp/pgsql_tmp77.0\"");
            assertThat(entry.statement()).isEqualTo("select * from t order by 1");
            assertThat(entry.knownQueryId()).isEqualTo(1234567L);
            assertThat(entry.pid()).isEqualTo(77);
            assertThat(entry.sqlState()).isNull();
        });
    }

    @Test
    void stderrEntriesAreStitchedFromTheirDetailStatementAndContinuationLines() {
        var parser = new StderrLogParser(LinePrefix.of("%m [%p] %q%u@%d %e %Q "));
        String log = """
                2026-12-02 05:37:01.123 UTC [4242] alice@shop 22012 -77 ERROR:  division by zero
                2026-12-02 05:37:01.123 UTC [4242] alice@shop 22012 -77 STATEMENT:  select 1 /
                \t0
                2026-12-02 05:37:02.000 UTC [51] LOG:  checkpoint starting: time
                2026-12-02 05:37:03.000 UTC [4243] bob@shop 00000 0 LOG:  duration: 2.5 ms  plan:
                \tQuery Text: select 1
                \tResult  (cost=0.00..0.01 rows=1 width=4) (actual time=0.001..0.001 rows=1 loops=1)
                """;
        byte[] data = log.getBytes(StandardCharsets.UTF_8);
        List<LogEntry> entries = new ArrayList<>();

        int consumed = parser.parse(data, data.length, false, entries::add);

        assertThat(entries).hasSize(2);
        LogEntry error = entries.get(0);
        assertThat(error.severity()).isEqualTo("ERROR");
        assertThat(error.sqlState()).isEqualTo("22012");
        assertThat(error.queryId()).isEqualTo(-77L);
        assertThat(error.user()).isEqualTo("alice");
        assertThat(error.database()).isEqualTo("shop");
        assertThat(error.pid()).isEqualTo(4242);
        assertThat(error.statement()).isEqualTo("select 1 /\n0");
        LogEntry checkpoint = entries.get(1);
        assertThat(checkpoint.message()).isEqualTo("checkpoint starting: time");
        assertThat(checkpoint.user()).isNull();
        assertThat(checkpoint.pid()).isEqualTo(51);
        assertThat(new String(data, consumed, data.length - consumed, StandardCharsets.UTF_8))
                .as("the last entry may go on: read again").startsWith("2026-12-02 05:37:03.000 UTC [4243]");

        entries.clear();
        byte[] rest = java.util.Arrays.copyOfRange(data, consumed, data.length);
        assertThat(parser.parse(rest, rest.length, true, entries::add)).isEqualTo(rest.length);
        assertThat(entries).singleElement().satisfies(plan -> assertThat(plan.message())
                .isEqualTo("duration: 2.5 ms  plan:\nQuery Text: select 1\n"
                        + "Result  (cost=0.00..0.01 rows=1 width=4) (actual time=0.001..0.001 rows=1 loops=1)"));
    }

    @Test
    void aSecondPrefixStyleWithClientAddressAndPaddingIsRead() {
        var parser = new StderrLogParser(LinePrefix.of("%t:%r:%-8u@%d:[%p]: "));
        String log = "2026-12-02 05:37:01 UTC:10.1.2.3(50312):carol   @shop:[99]: FATAL:  password authentication"
                + " failed for user \"carol\"\n"
                + "2026-12-02 05:37:01 UTC:10.1.2.3(50312):carol   @shop:[99]: DETAIL:  Connection matched file"
                + " \"pg_hba.conf\" line 3\n";
        byte[] data = log.getBytes(StandardCharsets.UTF_8);
        List<LogEntry> entries = new ArrayList<>();

        parser.parse(data, data.length, true, entries::add);

        assertThat(entries).singleElement().satisfies(entry -> {
            assertThat(entry.time()).isEqualTo(Instant.parse("2026-12-02T05:37:01Z"));
            assertThat(entry.clientAddress()).isEqualTo("10.1.2.3");
            assertThat(entry.user()).isEqualTo("carol");
            assertThat(entry.database()).isEqualTo("shop");
            assertThat(entry.pid()).isEqualTo(99);
            assertThat(entry.severity()).isEqualTo("FATAL");
            assertThat(entry.detail()).startsWith("Connection matched");
        });
        assertThat(parser.prefix().has('r')).isTrue();
        assertThat(parser.prefix().has('e')).isFalse();
    }

    @Test
    void anEntryLongerThanTheBoundKeepsItsHeadAndSaysItWasCut() {
        var parser = new StderrLogParser(LinePrefix.of("%m [%p] "));
        String huge = "x".repeat(LogEntry.MAX_CHARS * 2);
        String log = "2026-12-02 05:37:01.123 UTC [1] LOG:  start\n\t" + huge + "\n2026-12-02 05:37:01.123 UTC [1]"
                + " DETAIL:  " + huge + "\n";
        byte[] data = log.getBytes(StandardCharsets.UTF_8);
        List<LogEntry> entries = new ArrayList<>();

        parser.parse(data, data.length, true, entries::add);

        LogEntry entry = entries.getFirst();
        int total = entry.message().length() + (entry.detail() == null ? 0 : entry.detail().length());
        assertThat(total).isLessThanOrEqualTo(LogEntry.MAX_CHARS + 1);
        assertThat(entry.truncated()).isTrue();
        assertThat(entry.message()).startsWith("start\nxxx");
    }

    @Test
    void linesWrittenByOthersAreSkipped() {
        var parser = new StderrLogParser(LinePrefix.of("%m [%p] "));
        String log = "2026-12-02 05:37:01.123 UTC [1] LOG:  one\nsomething a library printed\n"
                + "2026-12-02 05:37:01.123 UTC [1] LOG:  two\n";
        byte[] data = log.getBytes(StandardCharsets.UTF_8);
        List<LogEntry> entries = new ArrayList<>();

        parser.parse(data, data.length, true, entries::add);

        assertThat(entries).extracting(LogEntry::message).containsExactly("one", "two");
    }
}
