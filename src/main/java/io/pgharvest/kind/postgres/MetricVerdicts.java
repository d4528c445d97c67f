package io.pgharvest.kind.postgres;

import io.pgharvest.model.sql.ExtensionNames;
import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What a session may send for each metric text, decided once per text: refused with a reason
 * (pgharvest's friendly check, more than one statement as the driver reads it), or sent wrapped
 * as {@link OneSelect} with the names of the session's extensions' objects qualified
 * ({@link ExtensionNames}). The verdicts are looked up on every tick of every source, so they are
 * kept twice: in a map shared by every session of the process (sources run the same texts), and
 * per session by text identity in front of it.
 *
 * <p>Not thread-safe: owned by one session's {@link SessionTexts}; the shared map is concurrent.
 */
final class MetricVerdicts {

    private static final int MAX_VERDICTS = 4096;
    /** Verdicts a session keeps for itself: more than the texts of a tick's metrics. */
    private static final int CACHED_VERDICTS = 256;
    /**
     * Verdicts shared by every session of the process: sources run the same metric texts, so each
     * text is checked once, not once per session (300 sessions checking 59 texts each was a fifth
     * of the collector's CPU while sources started). Keyed by the check and by how the session
     * reads backslashes, both of which the verdict depends on, and by the names of the session's
     * extensions (equal for databases with the same extensions in the same schemas).
     */
    private static final Map<Key, Verdict> SHARED = new ConcurrentHashMap<>();

    private final Function<String, Optional<String>> friendlyCheck;
    /** The statements a metric is sent between (BEGIN and ROLLBACK), for the one-Parse check. */
    private final List<String> framing;
    private final String separator;
    /**
     * This session's verdicts by SQL text instance, in front of {@link #SHARED}: a metric's text is
     * the same string on every tick, found here by reference, without hashing or comparing it.
     * Looked up three times per metric and tick; the shared map's record keys (their generated
     * equals and hashCode, and the texts compared character by character when another session's
     * equal text is a different string) were 5 % of the collector's CPU at 300 sources. Holds the
     * verdicts for {@link #ownStandardStrings}; emptied when that changes.
     */
    private final Map<String, Verdict> own = new IdentityHashMap<>();
    private boolean ownStandardStrings = true;

    /**
     * @param framing the statement before and the one after a metric in a round trip
     * @param separator how the round trip's statements are joined
     */
    MetricVerdicts(Function<String, Optional<String>> friendlyCheck, List<String> framing, String separator) {
        this.friendlyCheck = friendlyCheck;
        this.framing = List.copyOf(framing);
        this.separator = separator;
    }

    /** The verdict on {@code sql} for a session reading backslashes as {@code standardStrings}, with {@code names}. */
    Verdict of(String sql, boolean standardStrings, ExtensionNames names) {
        if (standardStrings != ownStandardStrings) {
            own.clear();
            ownStandardStrings = standardStrings;
        }
        Verdict verdict = own.get(sql);
        if (verdict == null) {
            if (own.size() >= CACHED_VERDICTS) {
                own.clear(); // texts no longer run (edited metrics)
            }
            verdict = shared(sql, standardStrings, names);
            own.put(sql, verdict);
        }
        return verdict;
    }

    /** The session's own verdicts no longer hold (its extensions' names changed). */
    void forget() {
        own.clear();
    }

    private Verdict shared(String sql, boolean standardStrings, ExtensionNames names) {
        var key = new Key(friendlyCheck, standardStrings, names, sql);
        Verdict verdict = SHARED.get(key);
        if (verdict == null) {
            if (SHARED.size() > MAX_VERDICTS) {
                SHARED.clear(); // texts no longer run (edited metrics) are not kept for good
            }
            // Sessions that start together ask for the same texts at once: one computes, the others wait.
            verdict = SHARED.computeIfAbsent(key, k -> decide(sql, k.standardStrings(), names));
        }
        return verdict;
    }

    /**
     * pgharvest's friendly check first (it says why), then the names of extension objects
     * qualified, then whether the driver would send the metric as one Parse message
     * ({@link OneSelect}).
     */
    private Verdict decide(String sql, boolean standardStrings, ExtensionNames names) {
        Optional<String> problem = friendlyCheck.apply(sql).or(() -> OneSelect.problem(sql));
        if (problem.isPresent()) {
            return new Verdict(problem.get(), null, null, Set.of());
        }
        ExtensionNames.Qualified qualified = names.qualify(sql, standardStrings);
        String sent = OneSelect.of(qualified.sql());
        List<String> parts = List.of(framing.getFirst(), sent, framing.getLast());
        try {
            OneSelect.requireOneParsePerPart(standardStrings, String.join(separator, parts), parts);
        } catch (SQLException e) {
            return new Verdict("is not exactly one statement as PostgreSQL's driver reads it", null, null, Set.of());
        }
        return new Verdict(null, sent, qualified.sql(), qualified.named());
    }

    /**
     * A metric SQL text's fate: refused with a reason, or sent as {@code sent}, its own text
     * {@code qualified}, naming these extension objects.
     */
    record Verdict(String problem, String sent, String qualified, Set<ExtensionNames.Member> named) {
    }

    private record Key(Function<String, Optional<String>> check, boolean standardStrings, ExtensionNames names,
            String sql) {
    }
}
