package io.pgharvest.serverlog;

import io.pgharvest.nativemetric.SqlReader;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The log directory read through the source's session: {@code pg_ls_logdir()} (pg_monitor) lists
 * it, {@code pg_read_binary_file} with an offset and a length (pg_read_server_files, or EXECUTE
 * granted on it) reads only the new part of a file.
 */
final class SqlLogFiles implements LogFiles {

    private static final String LIST_SQL = """
            select /* pgharvest */ f.name, f.size, f.modification
            from pg_ls_logdir() f
            where right(f.name, length(?)) = ?
            order by f.modification, f.name""";
    private static final String READ_SQL =
            "select /* pgharvest */ pg_read_binary_file(?, ?, ?, true) as chunk";

    private final SqlReader sql;
    /** log_directory as the server has it: relative paths are under the data directory, which the server resolves. */
    private final String directory;

    SqlLogFiles(SqlReader sql, String directory) {
        this.sql = sql;
        this.directory = directory;
    }

    @Override
    public List<LogFile> list(String suffix) throws SQLException {
        var files = new ArrayList<LogFile>();
        for (Map<String, Object> row : sql.query(LIST_SQL, suffix, suffix)) {
            files.add(new LogFile((String) row.get("name"), ((Number) row.get("size")).longValue(),
                    instant(row.get("modification"))));
        }
        return files;
    }

    @Override
    public byte[] read(String name, long offset, int length) throws SQLException {
        List<Map<String, Object>> rows = sql.query(READ_SQL, directory + "/" + name, offset, (long) length);
        Object chunk = rows.isEmpty() ? null : rows.getFirst().get("chunk");
        return chunk == null ? new byte[0] : (byte[]) chunk;
    }

    @Override
    public String describe() {
        return "SQL (pg_ls_logdir, pg_read_binary_file) in " + directory;
    }

    private static Instant instant(Object value) {
        if (value instanceof Timestamp timestamp) {
            return timestamp.toInstant();
        }
        if (value instanceof OffsetDateTime time) {
            return time.toInstant();
        }
        return Instant.EPOCH;
    }
}
