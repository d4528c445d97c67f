package io.pgharvest.pgwatch.format;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns an unreadable configuration file into a start-up report that says where and what to do. */
class ConfigFileFailureAnalyzer extends AbstractFailureAnalyzer<ConfigFileException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ConfigFileException cause) {
        String where = cause.line() > 0
                ? " at line " + cause.line() + (cause.column() > 0 ? ", column " + cause.column() : "")
                : "";
        String description = "pgharvest cannot read its configuration file " + cause.file() + where + ":\n    "
                + cause.problem();
        String action = "Correct " + cause.file().getFileName() + where + " by hand, or move the file away to start"
                + " without it. pgharvest has not changed the file. The expected format is pgwatch's YAML format"
                + " (see docs/configuration.md).";
        return new FailureAnalysis(description, action, cause);
    }
}
