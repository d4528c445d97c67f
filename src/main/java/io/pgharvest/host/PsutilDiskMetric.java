package io.pgharvest.host;

import io.pgharvest.model.Measurement;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.stereotype.Component;

/**
 * pgwatch's {@code psutil_disk}: one row per server directory (tags {@code dir_or_tablespace}:
 * {@code data_directory}, {@code pg_wal}, {@code log_directory} or a tablespace's name, and
 * {@code path}) with its file system's {@code total}, {@code used} and {@code free} bytes and
 * {@code percent} used (of what an unprivileged user can use, as psutil computes it). The paths
 * come from the server (reading {@code data_directory} needs pg_monitor or pg_read_all_settings);
 * a directory this process cannot read is left out, as pgwatch does.
 */
@Component
final class PsutilDiskMetric extends HostMetric {

    /** pgharvest's query for the server's directories; a relative log_directory is under the data directory. */
    static final String DIRECTORIES_SQL = """
            select /* pgharvest */ 'data_directory' as name, current_setting('data_directory') as path
            union all
            select 'pg_wal', current_setting('data_directory') || '/pg_wal'
            union all
            select 'log_directory',
                   case when left(current_setting('log_directory'), 1) = '/' then current_setting('log_directory')
                        else current_setting('data_directory') || '/' || current_setting('log_directory') end
            union all
            select t.spcname::text, pg_tablespace_location(t.oid)
            from pg_tablespace t
            where t.spcname not in ('pg_default', 'pg_global')""";

    PsutilDiskMetric() {
        super("psutil_disk");
    }

    @Override
    public Collector newCollector() {
        return target -> {
            requireLocal(target);
            var rows = new ArrayList<Measurement.Row>();
            for (Map<String, Object> directory : target.sql().query(DIRECTORIES_SQL)) {
                String name = String.valueOf(directory.get("name"));
                Object path = directory.get("path");
                if (path != null && !path.toString().isEmpty()) {
                    usage(name, Path.of(path.toString())).ifPresent(rows::add);
                }
            }
            return rows;
        };
    }

    private static java.util.Optional<Measurement.Row> usage(String name, Path path) throws IOException {
        if (!Files.isDirectory(path) || !Files.isReadable(path)) {
            return java.util.Optional.empty();
        }
        FileStore store = Files.getFileStore(path);
        long total = store.getTotalSpace();
        long free = store.getUsableSpace();
        long used = total - store.getUnallocatedSpace();
        var values = new LinkedHashMap<String, Object>();
        values.put("total", total);
        values.put("used", used);
        values.put("free", free);
        values.put("percent", used + free == 0 ? 0.0 : round2(100.0 * used / (used + free)));
        return java.util.Optional.of(new Measurement.Row(values,
                Map.of("dir_or_tablespace", name, "path", path.toString())));
    }
}
