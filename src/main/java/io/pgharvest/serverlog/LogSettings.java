package io.pgharvest.serverlog;

import io.pgharvest.serverlog.event.LogCategory;
import io.pgharvest.serverlog.entry.LinePrefix;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The server settings log insights depend on, read once per read of the log: where and how the
 * server logs, and what each {@link LogCategory} needs it to log. {@link #missingFor} names what
 * is off, with the setting to change, for the source's status.
 */
record LogSettings(boolean loggingCollector, String destination, String directory, String dataDirectory,
        LinePrefix prefix, String autovacuumMinDuration, boolean checkpoints, boolean lockWaits, String tempFiles,
        String minDurationStatement, String computeQueryId, String lcMessages, String autoExplainMinDuration) {

    static final String SQL = """
            select /* pgharvest */ current_setting('logging_collector') as logging_collector,
                   current_setting('log_destination') as log_destination,
                   current_setting('log_directory') as log_directory,
                   current_setting('data_directory') as data_directory,
                   current_setting('log_line_prefix') as log_line_prefix,
                   current_setting('log_autovacuum_min_duration') as log_autovacuum_min_duration,
                   current_setting('log_checkpoints') as log_checkpoints,
                   current_setting('log_lock_waits') as log_lock_waits,
                   current_setting('log_temp_files') as log_temp_files,
                   current_setting('log_min_duration_statement') as log_min_duration_statement,
                   current_setting('compute_query_id') as compute_query_id,
                   current_setting('lc_messages') as lc_messages,
                   current_setting('auto_explain.log_min_duration', true) as auto_explain_min_duration""";

    static LogSettings of(Map<String, Object> row) {
        return new LogSettings("on".equals(row.get("logging_collector")),
                text(row, "log_destination").toLowerCase(Locale.ROOT), text(row, "log_directory"),
                text(row, "data_directory"), LinePrefix.of(text(row, "log_line_prefix")),
                text(row, "log_autovacuum_min_duration"), "on".equals(row.get("log_checkpoints")),
                "on".equals(row.get("log_lock_waits")), text(row, "log_temp_files"),
                text(row, "log_min_duration_statement"), text(row, "compute_query_id"), text(row, "lc_messages"),
                text(row, "auto_explain_min_duration"));
    }

    private static String text(Map<String, Object> row, String column) {
        Object value = row.get(column);
        return value == null ? "" : value.toString();
    }

    /** The destination read: csvlog when the server writes it, else jsonlog, else stderr's files. */
    Optional<LogDestination> chosenDestination() {
        if (destination.contains("csvlog")) {
            return Optional.of(LogDestination.CSVLOG);
        }
        if (destination.contains("jsonlog")) {
            return Optional.of(LogDestination.JSONLOG);
        }
        return destination.contains("stderr") ? Optional.of(LogDestination.STDERR) : Optional.empty();
    }

    /** What is off for {@code category}, each with the setting that turns it on; empty when nothing is. */
    List<String> missingFor(LogCategory category, LogDestination read) {
        var missing = new ArrayList<String>();
        boolean stderr = read == LogDestination.STDERR;
        boolean english = lcMessages.isEmpty() || lcMessages.startsWith("C") || lcMessages.startsWith("POSIX")
                || lcMessages.toLowerCase(Locale.ROOT).startsWith("en");
        if (!english && category != LogCategory.ERRORS && category != LogCategory.CONNECTION_FAILURES) {
            missing.add("lc_messages is '" + lcMessages + "': messages are read in English (set lc_messages = 'C')");
        }
        switch (category) {
            case AUTOVACUUM -> off(missing, autovacuumMinDuration.equals("-1"),
                    "log_autovacuum_min_duration is -1 (set it to 0 or a duration such as '10s')");
            case CHECKPOINTS -> off(missing, !checkpoints, "log_checkpoints is off (set log_checkpoints = on)");
            case LOCK_WAITS -> off(missing, !lockWaits, "log_lock_waits is off (set log_lock_waits = on)");
            case DEADLOCKS -> off(missing, stderr && !prefix.has('p'),
                    "log_line_prefix has no %p: the deadlock's victim is not known (add [%p])");
            case TEMP_FILES -> off(missing, tempFiles.equals("-1"),
                    "log_temp_files is -1 (set it to 0 or a size such as '10MB')");
            case ERRORS -> off(missing, stderr && !prefix.has('e'),
                    "log_line_prefix has no %e: errors have no SQLSTATE (add %e)");
            case CONNECTION_FAILURES -> off(missing, stderr && !prefix.has('h') && !prefix.has('r'),
                    "log_line_prefix has neither %h nor %r: failures have no client address (add %h)");
            case SLOW_STATEMENTS -> off(missing, minDurationStatement.equals("-1"),
                    "log_min_duration_statement is -1 (set it to a duration such as '1s')");
            case PLANS -> {
                off(missing, autoExplainMinDuration.isEmpty() || autoExplainMinDuration.equals("-1"),
                        "auto_explain is not logging plans (load it in shared_preload_libraries or"
                                + " session_preload_libraries and set auto_explain.log_min_duration)");
                off(missing, computeQueryId.equals("off"),
                        "compute_query_id is off: plans cannot be joined to their statements (set it to on or auto)");
                off(missing, stderr && !prefix.has('Q'),
                        "log_line_prefix has no %Q: plans cannot be joined to their statements (add %Q)");
            }
            case SERVER_EVENTS -> {
                // logged whatever the settings: crashes, recovery, replication, start-up, shutdown
            }
            default -> throw new IllegalStateException("no requirements for " + category);
        }
        return missing;
    }

    private static void off(List<String> missing, boolean isOff, String what) {
        if (isOff) {
            missing.add(what);
        }
    }
}
