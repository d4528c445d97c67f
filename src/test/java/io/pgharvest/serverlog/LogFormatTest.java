package io.pgharvest.serverlog;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Records are found whole: a quoted newline does not end a CSV record, an unfinished record is left for later. */
@Tag("fast")
class LogFormatTest {

    private final List<String> seen = new ArrayList<>();

    @Test
    void csvRecordsMaySpanLinesAndAnUnfinishedOneIsNotConsumed() {
        String complete = "2026-11-23 01:00:00.000 UTC,\"u\",\"app\",42,\"[local]\",s1,1,\"SELECT\",2026-11-23 01:00:00 UTC,"
                + "3/1,0,ERROR,22012,\"division by zero\",,,,,,\"select 1/0 as \"\"line\nbreak\"\"\",,,\"psql\",\"client backend\",,0\n"
                + "2026-11-23 01:00:01.000 UTC,,,43,,s2,1,,2026-11-23 01:00:00 UTC,,0,LOG,00000,\"checkpoint starting\","
                + ",,,,,,,,,\"checkpointer\",,0\n";
        String unfinished = "2026-11-23 01:00:02.000 UTC,\"u\",\"app\",42,,s1,2,\"SELECT\",x,3/2,0,WARNING,01000,\"half";
        byte[] data = (complete + unfinished).getBytes(StandardCharsets.UTF_8);

        int consumed = LogFormat.CSV.scan(data, data.length, (severity, database) -> seen.add(severity + "@" + database));

        assertThat(seen).containsExactly("ERROR@app", "LOG@");
        assertThat(consumed).isEqualTo(complete.getBytes(StandardCharsets.UTF_8).length);
    }

    @Test
    void jsonRecordsAreOnePerLine() {
        String lines = "{\"timestamp\":\"x\",\"dbname\":\"app\",\"error_severity\":\"WARNING\",\"message\":\"a\\nb\"}\n"
                + "{\"timestamp\":\"x\",\"error_severity\":\"FATAL\"}\n"
                + "{\"timestamp\":\"x\",\"dbname\":\"app\",\"error_sev";
        byte[] data = lines.getBytes(StandardCharsets.UTF_8);

        int consumed = LogFormat.JSON.scan(data, data.length, (severity, database) -> seen.add(severity + "@" + database));

        assertThat(seen).containsExactly("WARNING@app", "FATAL@null");
        assertThat(consumed).isEqualTo(lines.lastIndexOf('\n') + 1);
    }
}
