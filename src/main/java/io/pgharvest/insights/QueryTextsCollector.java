package io.pgharvest.insights;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.InstanceShelf;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * query_texts for one source: the normalized text of each query ID of the source's database once,
 * when the collector first sees it, and again when its text changes. The collector sends the ids
 * and text hashes it knows with the query, so the server returns a text only for the others:
 * every other entry comes back as its id and hash alone, and the bytes sent per read do not
 * grow with the texts already delivered. The known ids are those of the latest read, so the
 * state is bounded by pg_stat_statements.max (one long and one int an entry). Texts pass the
 * reaper's literal redaction like every {@code query} column ({@code model.QueryTextRedaction}).
 * Plain reads' texts are also kept for query_plans ({@link StatementBook}). Statements that only
 * pgharvest's own roles ran are left out unless {@code include-own-statements} is on, as in query_stats.
 *
 * <p>pg_stat_statements' texts are instance-wide like its statistics, so while query_texts is
 * collected on several databases of one instance they are read once per instance and interval by
 * one member whose database has the extension, for every member's database ({@link InstanceTexts}),
 * and each member takes its own database's part; a database without the extension gets its texts
 * that way too. Collected on one database only (or on an unknown instance), the source reads its
 * own database's texts. Used by the source's reaper thread only.
 */
final class QueryTextsCollector implements NativeMetric.Collector {

    private final Duration timeout;
    private final boolean includeOwnStatements;
    private final ExtensionLookup extension = new ExtensionLookup();
    /** Query id -> hashtext() of its text, as of the previous read; replaced, never changed. */
    private Map<Long, Integer> known = Map.of();
    /** The instance-wide read {@link #known} came from; null when it came from this source's own read. */
    private InstanceTexts.Read taken;
    private Set<String> ownRoles;
    /** The instance's shared reads this collector took part in at its latest turn; null when not shared. */
    private InstanceTexts sharedTexts;
    /** query_texts' own interval (a read on demand runs on query_stats' target, with its interval). */
    private Duration turnInterval;
    /**
     * Ids query_stats ranked that a read asked for on demand and found no text of (a text the server
     * dropped, an id only pgharvest's roles ran): not asked again until query_texts' next turn.
     */
    private final Set<Long> unanswered = new HashSet<>();

    /** @param timeout the time limit of the texts read (the server reads its query text file for it) */
    QueryTextsCollector(Duration timeout) {
        this(timeout, false);
    }

    /**
     * @param timeout the time limit of the texts read (the server reads its query text file for it)
     * @param includeOwnStatements whether the texts of statements only the session's own roles ran
     *     are read too (as query_stats counts them only then)
     */
    QueryTextsCollector(Duration timeout, boolean includeOwnStatements) {
        this.timeout = timeout;
        this.includeOwnStatements = includeOwnStatements;
    }

    /** This turn's rows; offers query_stats the texts of statements new to its top ({@link TextsOnDemand}). */
    @Override
    public Map<String, List<Measurement.Row>> collectByName(NativeTarget target, String storageName)
            throws Exception {
        unanswered.clear();
        target.shelf().item(TextsOnDemand.class, TextsOnDemand::new).offer(this::readUnknown, storageName,
                target.now(), target.interval());
        return Map.of(storageName, collect(target));
    }

    /**
     * The texts of {@code ranked} ids this collector does not know, read from the source's own
     * database (only the ids it does not know come back with a text) under the texts timeout, when
     * any is unknown and was not asked for since this collector's latest turn. Called by query_stats
     * on its tick; {@code target} is query_stats', so an instance's shared read is joined through
     * the one this collector took part in at its own turn.
     */
    private List<Measurement.Row> readUnknown(NativeTarget target, List<Long> ranked) throws Exception {
        var unknown = new ArrayList<Long>();
        for (long id : ranked) {
            if (!known.containsKey(id) && !unanswered.contains(id)) {
                unknown.add(id);
            }
        }
        if (unknown.isEmpty() || extension.find(target) == null) {
            return List.of(); // a database without the extension gets its texts from the instance's next read
        }
        List<Measurement.Row> rows = readOwnDatabase(target);
        unknown.removeIf(known::containsKey);
        unanswered.addAll(unknown);
        if (sharedTexts != null) {
            register(sharedTexts, target); // the instance's next read knows what this source knows now
        }
        return rows;
    }

    @Override
    public List<Measurement.Row> collect(NativeTarget target) throws Exception {
        InstanceShelf shelf = target.instanceShelf();
        sharedTexts = null;
        turnInterval = target.interval();
        if (!shelf.isShared()) {
            taken = null;
            return readOwnDatabase(target);
        }
        InstanceTexts texts = shelf.item(InstanceTexts.class, InstanceTexts::new);
        sharedTexts = texts;
        register(texts, target);
        Instant now = target.now();
        InstanceTexts.Read fresh = texts.reusable(target.interval(), now, taken, null).orElse(null);
        if (fresh != null && !fresh.covers(target.source(), known) && extension.missing() == null
                && extension.find(target) != null) {
            // A fresh read made before this source joined (or before its latest take): its own
            // database's texts this once; the next instance-wide read covers it. A new source thus
            // costs one read of its own database, not a read of every database of the instance.
            List<Measurement.Row> rows = readOwnDatabase(target);
            taken = fresh; // not to be taken later: it does not know what this source knows now
            register(texts, target);
            return rows;
        }
        InstanceTexts.Read read = fresh != null && fresh.covers(target.source(), known) ? fresh : null;
        if (read == null) {
            // A database known to lack the extension is looked at again only when nobody else can read.
            StatementsExtension found = extension.missing() != null && texts.hasReader(target.interval(), now)
                    ? null : extension.find(target);
            if (found == null) {
                if (!texts.hasReader(target.interval(), now)) {
                    throw new NativeMetric.Unavailable(extension.missing().getMessage()
                            + "; no other database of this instance"
                            + " that collects query_texts has it either");
                }
                return List.of(); // the next read of a member with the extension covers this database
            }
            texts.readerSeen(now);
            if (!texts.tryClaim(now, now.plus(target.interval()))) {
                return List.of(); // another member is reading, this database included
            }
            try {
                read = readInstance(target, found, texts.members(now));
                texts.publish(read);
            } finally {
                texts.release();
            }
        }
        taken = read;
        List<Measurement.Row> rows = take(read.textsOf(target.database()), target);
        register(texts, target);
        return rows;
    }

    private void register(InstanceTexts texts, NativeTarget target) {
        texts.register(target.source(), new InstanceTexts.Member(target.database(), known, target.now(),
                turnInterval));
    }

    /** The texts of every member's database, read through this source's session. */
    private InstanceTexts.Read readInstance(NativeTarget target, StatementsExtension found,
            Map<String, InstanceTexts.Member> members) throws SQLException {
        Object[] knownTexts = InstanceTexts.knownTexts(members);
        List<Map<String, Object>> rows = read(target, found.instanceTextsSql(includeOwnStatements),
                InstanceTexts.databases(members), knownTexts[0], knownTexts[1], knownTexts[2]);
        return InstanceTexts.Read.of(target.now(), members, InstanceTexts.byDatabase(rows));
    }

    /** This database's texts, read through this source's session (the metric is not shared). */
    private List<Measurement.Row> readOwnDatabase(NativeTarget target) throws Exception {
        StatementsExtension found = extension.find(target);
        if (found == null) {
            throw extension.missing();
        }
        long[] ids = new long[known.size()];
        int[] hashes = new int[known.size()];
        int i = 0;
        for (var entry : known.entrySet()) {
            ids[i] = entry.getKey();
            hashes[i++] = entry.getValue();
        }
        var texts = new ArrayList<InstanceTexts.Text>();
        for (Map<String, Object> row : read(target, found.textsSql(includeOwnStatements), ids, hashes)) {
            texts.add(new InstanceTexts.Text(((Number) row.get("queryid")).longValue(),
                    ((Number) row.get("text_hash")).intValue(), (String) row.get("query"), null));
        }
        return take(texts, target);
    }

    /**
     * The rows of the texts that are new to this source, and what it knows from now on: every id
     * of the read but those only pgharvest's own roles ran (the read leaves out the reading
     * session's roles; a member logged in as another role leaves out its own here).
     */
    private List<Measurement.Row> take(List<InstanceTexts.Text> texts, NativeTarget target) throws SQLException {
        Set<String> own = includeOwnStatements ? Set.of() : ownRoles(target, texts);
        StatementBook book = target.shelf().item(StatementBook.class, StatementBook::new);
        var seen = HashMap.<Long, Integer>newHashMap(texts.size());
        var rows = new ArrayList<Measurement.Row>();
        for (InstanceTexts.Text text : texts) {
            if (text.roles() != null && own.containsAll(text.roles())) {
                continue;
            }
            seen.put(text.queryId(), text.hash());
            Integer knownHash = known.get(text.queryId());
            if (text.text() != null && (knownHash == null || knownHash != text.hash())) {
                book.text(text.queryId(), text.text());
                var values = new LinkedHashMap<String, Object>();
                values.put("query", text.text());
                values.put("text_hash", text.hash());
                rows.add(new Measurement.Row(values, Map.of("queryid", Long.toString(text.queryId()), "dbname",
                        target.database())));
            }
        }
        known = seen;
        book.retainTexts(seen.keySet());
        return rows;
    }

    private List<Map<String, Object>> read(NativeTarget target, String sql, Object... parameters)
            throws SQLException {
        try {
            return target.sql().query(timeout, sql, parameters);
        } catch (SQLException e) {
            if (StatementsExtension.CHANGED_STATES.contains(e.getSQLState())) {
                extension.forget(); // dropped, moved or updated: look it up again on the next tick
            }
            throw e;
        }
    }

    /** This session's roles, asked only when a read holds roles to compare (another member's read). */
    private Set<String> ownRoles(NativeTarget target, List<InstanceTexts.Text> texts) throws SQLException {
        if (ownRoles == null && texts.stream().anyMatch(t -> t.roles() != null)) {
            ownRoles = OwnRoles.of(target.sql());
        }
        return ownRoles == null ? Set.of() : ownRoles;
    }


    /** How many query ids this collector knows (its state). */
    int knownIds() {
        return known.size();
    }
}
