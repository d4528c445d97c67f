package io.pgharvest.pgwatch;

import java.util.stream.Collectors;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a rejected start-up import into a report that lists every problem and what to do. */
class ImportFailureAnalyzer extends AbstractFailureAnalyzer<ImportRejectedException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ImportRejectedException cause) {
        String description = "The pgwatch import configured by pgharvest.import.* was rejected; nothing was"
                + " imported:\n" + cause.problems().stream().map(p -> "    " + p.field() + ": " + p.message())
                .collect(Collectors.joining("\n"))
                + (cause.notices().isEmpty() ? "" : "\nNotices:\n" + cause.notices().stream()
                        .map(n -> "    " + n).collect(Collectors.joining("\n")));
        String action = "Correct the files named by pgharvest.import.metrics and pgharvest.import.sources, or unset"
                + " those properties to start without the import (docs/pgwatch-import.md).";
        return new FailureAnalysis(description, action, cause);
    }
}
