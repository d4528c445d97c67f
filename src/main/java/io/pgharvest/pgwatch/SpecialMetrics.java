package io.pgharvest.pgwatch;

import io.pgharvest.model.SourceKind;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * pgwatch's metrics whose definition in {@code metrics.yaml} is a placeholder for work its Go code
 * does, and what pgharvest does about each. Their SQL is never imported: it would either fail
 * (an empty or comment-only query) or write something other than what pgwatch writes.
 */
final class SpecialMetrics {

    private static final Map<String, String> WHY = Map.of(
            "change_events", "pgwatch computes change events in its own code from the *_hashes metrics;"
                    + " pgharvest does the same from its table_hashes, index_hashes, sproc_hashes,"
                    + " configuration_hashes and privilege_changes metrics, which selections naming"
                    + " change_events get instead",
            "instance_up", "pgharvest writes instance_up itself for every source (1 when the server answers,"
                    + " 0 when it does not) at the source's shortest interval, with pgwatch's table and key",
            "server_log_event_counts", "pgwatch reads the server's log files in its own code; pgharvest's built-in"
                    + " server_log_event_counts (native) does the same, with pgwatch's table and keys, and selections"
                    + " naming it get that one");

    /** What a selection (preset or source) naming a special metric selects instead, at the same interval. */
    private static final Map<String, List<String>> REPLACED_BY = Map.of(
            "change_events", List.of("table_hashes", "index_hashes", "sproc_hashes", "configuration_hashes",
                    "privilege_changes"));

    private SpecialMetrics() {
    }

    /**
     * Why a selection entry naming {@code name}, which no metric defines, needs no metric in pgharvest,
     * or empty when nothing collects it.
     */
    static Optional<String> collectedWithoutSelection(String name) {
        // A kind may collect metrics without a selection (what its discovery adds); its rules say which.
        return SourceKind.values().stream().map(kind -> kind.collectsUnselected(name)).flatMap(Optional::stream)
                .findFirst();
    }

    /** The metrics a selection naming {@code name} gets instead; empty when it is dropped or not special. */
    static List<String> replacements(String name) {
        return REPLACED_BY.getOrDefault(name, List.of());
    }

    /** Why pgwatch's metric {@code name} is not imported as SQL, or empty when it is an ordinary metric. */
    static Optional<String> of(String name) {
        return Optional.ofNullable(WHY.get(name));
    }
}
