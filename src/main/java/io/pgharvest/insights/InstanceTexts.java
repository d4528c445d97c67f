package io.pgharvest.insights;

import java.sql.Array;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * query_texts' one read of pg_stat_statements' texts per PostgreSQL instance and interval, shared
 * by the collectors of the instance's databases (the rules of {@link SharedRead}). Like the
 * statistics, the texts are instance-wide: one member whose database has the extension reads the
 * texts of every member's database. Each member registers the query ids (and text hashes) it
 * knows ({@link #register}); the read leaves a text out only where every member of its database
 * knows it with that hash ({@link #knownTexts}), so a text crosses the network once, when its id is
 * new, as with one read per database. A member takes a read only when it was made with what the
 * member knows now ({@link Read#covers}); otherwise (it joined later, or its registration lost a
 * race with the read) it reads its own database's texts once, and the next read covers it, so a
 * source joining costs one read of its own database, not one of the whole instance. Thread-safe.
 */
final class InstanceTexts extends SharedRead<InstanceTexts.Read> {

    /** By source name: several sources may read one database. */
    private final ConcurrentHashMap<String, Member> members = new ConcurrentHashMap<>();

    /**
     * A member's database and the ids it knows, from its collector.
     *
     * @param known query id -> text hash; the collector's own map, never changed (a new map replaces it)
     * @param seen when the member last collected; a member silent for two of its intervals is left out
     */
    record Member(String database, Map<Long, Integer> known, Instant seen, Duration interval) {
    }

    /** A member's latest knowledge: what the next read must tell it. */
    void register(String source, Member member) {
        members.put(source, member);
    }

    /** The members that collected within two of their intervals (the others leave). */
    Map<String, Member> members(Instant now) {
        members.values().removeIf(m -> !m.seen().plus(m.interval().multipliedBy(2)).isAfter(now));
        return Map.copyOf(members);
    }

    /**
     * What the read may leave texts out for: per database the ids every member of it knows with the
     * same hash, as three parallel arrays (database, query id, hash) for the query's parameters.
     */
    static Object[] knownTexts(Map<String, Member> members) {
        var byDatabase = new HashMap<String, Map<Long, Integer>>();
        for (Member member : members.values()) {
            byDatabase.merge(member.database(), member.known(), (a, b) -> {
                var common = new HashMap<Long, Integer>(a);
                common.entrySet().removeIf(e -> !e.getValue().equals(b.get(e.getKey())));
                return common;
            });
        }
        int size = byDatabase.values().stream().mapToInt(Map::size).sum();
        var databases = new String[size];
        var ids = new long[size];
        var hashes = new int[size];
        int i = 0;
        for (var database : byDatabase.entrySet()) {
            for (var known : database.getValue().entrySet()) {
                databases[i] = database.getKey();
                ids[i] = known.getKey();
                hashes[i++] = known.getValue();
            }
        }
        return new Object[] {databases, ids, hashes};
    }

    /** The distinct databases of {@code members}. */
    static String[] databases(Map<String, Member> members) {
        return members.values().stream().map(Member::database).distinct().toArray(String[]::new);
    }

    /**
     * One query id of a database in a read.
     *
     * @param text the text, null when every member of the database knew it with this hash
     * @param roles the roles whose entries hold it (null when pgharvest's own statements count):
     *     a member leaves out the ids only its own roles ran
     */
    record Text(long queryId, int hash, String text, List<String> roles) {
    }

    /**
     * One read of the texts of the members' databases.
     *
     * @param knownBySource what each member knew when the read was made (its collector's own map)
     * @param byDatabase each database's query ids
     */
    record Read(Instant at, Map<String, Map<Long, Integer>> knownBySource, Map<String, List<Text>> byDatabase)
            implements SharedRead.Timed {

        static Read of(Instant at, Map<String, Member> members, Map<String, List<Text>> byDatabase) {
            var known = HashMap.<String, Map<Long, Integer>>newHashMap(members.size());
            members.forEach((source, member) -> known.put(source, member.known()));
            return new Read(at, Map.copyOf(known), Map.copyOf(byDatabase));
        }

        /** Whether this read was made knowing exactly what {@code source} knows now ({@code known}, by identity). */
        boolean covers(String source, Map<Long, Integer> known) {
            return knownBySource.get(source) == known;
        }

        /** The query ids of {@code database} in this read. */
        List<Text> textsOf(String database) {
            return byDatabase.getOrDefault(database, List.of());
        }
    }

    /** Groups a read's rows by database (the query orders them so). */
    static Map<String, List<Text>> byDatabase(List<Map<String, Object>> rows) throws SQLException {
        var byDatabase = new HashMap<String, List<Text>>();
        String database = null;
        List<Text> texts = null;
        for (Map<String, Object> row : rows) {
            String name = (String) row.get("datname");
            if (!name.equals(database)) {
                database = name;
                texts = byDatabase.computeIfAbsent(name, d -> new ArrayList<>());
            }
            texts.add(new Text(((Number) row.get("queryid")).longValue(), ((Number) row.get("text_hash")).intValue(),
                    (String) row.get("query"), roles(row.get("roles"))));
        }
        return byDatabase;
    }

    private static List<String> roles(Object value) throws SQLException {
        if (value == null) {
            return null;
        }
        Object array = value instanceof Array sqlArray ? sqlArray.getArray() : value;
        return List.of((String[]) array);
    }
}
