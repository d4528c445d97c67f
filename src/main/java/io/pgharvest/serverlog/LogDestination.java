package io.pgharvest.serverlog;

import io.pgharvest.serverlog.entry.CsvLogParser;
import io.pgharvest.serverlog.entry.JsonLogParser;
import io.pgharvest.serverlog.entry.LinePrefix;
import io.pgharvest.serverlog.entry.LogEntryParser;
import io.pgharvest.serverlog.entry.StderrLogParser;

/**
 * A log_destination the logging collector writes files for: which files of the log directory
 * are its own, and how their entries are read.
 */
enum LogDestination {
    CSVLOG,
    JSONLOG,
    STDERR;

    private static final LogEntryParser CSV = new CsvLogParser();
    private static final LogEntryParser JSON = new JsonLogParser();

    /** The setting's word for it, also the format recorded with a read position. */
    String setting() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Whether {@code fileName} is one of this destination's files (stderr's are the ones that are neither .csv nor .json). */
    boolean owns(String fileName) {
        return switch (this) {
            case CSVLOG -> fileName.endsWith(".csv");
            case JSONLOG -> fileName.endsWith(".json");
            case STDERR -> !fileName.endsWith(".csv") && !fileName.endsWith(".json");
        };
    }

    LogEntryParser parser(LinePrefix prefix) {
        return switch (this) {
            case CSVLOG -> CSV;
            case JSONLOG -> JSON;
            case STDERR -> new StderrLogParser(prefix);
        };
    }
}
