package io.pgharvest.kind.postgres;

import io.pgharvest.model.sql.ExtensionNames;
import io.pgharvest.model.sql.ExtensionNames.Member;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The objects of the extensions installed in a session's database, read from the catalog once per
 * session and again when an extension is created, dropped, moved or updated ({@link #FINGERPRINT}
 * changes), so that a metric naming {@code pg_stat_statements} without a schema reads the
 * extension's view wherever it was created ({@link ExtensionNames}).
 *
 * <p>What a database owner cannot do with it (docs/security.md, "Extensions' objects"):
 * <ul>
 * <li>an object counts only when {@code pg_depend} makes it a member of an extension
 * ({@code deptype 'e'}) and a superuser owns it: an owner's own view of the same name in another
 * schema is not one, nor is an object they {@code ALTER EXTENSION ... ADD} to an extension of
 * theirs (they cannot give it to a superuser);</li>
 * <li>a function name counts only when every function of that name in its schema is such a member:
 * an owner's overload there could be the better match for a metric's arguments;</li>
 * <li>what the qualified names find is checked on every round trip that sends one, before any
 * metric ({@link #guard}): the OIDs found by those schema and object names must be the ones read
 * here, or the round trip fails before its metrics are parsed, and the session reads the
 * extensions again. A renamed schema, another one created under the old name, an overload added
 * later, an extension dropped and created again all change them.</li>
 * </ul>
 */
final class ExtensionObjects {

    /**
     * The extensions as the facts query reads them on every refresh: cheap (pg_extension has a few
     * rows), and any change of an extension's set, version or schema changes it.
     */
    static final String FINGERPRINT = "(select coalesce(pg_catalog.string_agg(e.oid::text || ' ' || e.extversion"
            + " || ' ' || e.extnamespace::text, ',' order by e.oid), '') from pg_catalog.pg_extension e)";

    /**
     * Every relation and function that is a member of an extension, outside pg_catalog, owned by a
     * superuser or by a role the database's owner is not a member of; a function only when no
     * function of its name in its schema is anything else. A name pg_catalog has is left out: an
     * unqualified name resolves there, and must go on doing so (orafce's oracle.substr is not
     * what a metric's substr means).
     */
    static final String MEMBERS = members("r", "pg_class", "c", "rel",
            "\n   and c.relkind in ('r', 'v', 'm', 'f', 'p')")
            + "\nunion all\n"
            + members("f", "pg_proc", "p", "pro", """

               and not exists (
                 select from pg_catalog.pg_proc q join pg_catalog.pg_roles qr on qr.oid = q.proowner
                  where q.pronamespace = p.pronamespace and q.proname = p.proname
                    and (not (qr.rolsuper or not pg_catalog.pg_has_role(db.datdba, qr.oid, 'MEMBER')) or not exists (
                      select from pg_catalog.pg_depend qd
                       where qd.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass and qd.objid = q.oid
                         and qd.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass and qd.deptype = 'e')))""");

    /**
     * The members of one catalog ({@code pg_class}, {@code pg_proc}) that {@link #MEMBERS} reads,
     * with the conditions both share and the catalog's own {@code extra}; {@code column} is the
     * catalog's column prefix ({@code rel}name, {@code pro}namespace, ...).
     */
    private static String members(String tag, String catalog, String alias, String column, String extra) {
        return """
                select '%1$s', n.nspname::text, %3$s.%4$sname::text, %3$s.oid::int8
                  from pg_catalog.pg_extension e
                  join pg_catalog.pg_depend d on d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass
                                             and d.refobjid = e.oid and d.deptype = 'e'
                  join pg_catalog.%2$s %3$s on %3$s.oid = d.objid
                  join pg_catalog.pg_namespace n on n.oid = %3$s.%4$snamespace
                  join pg_catalog.pg_roles r on r.oid = %3$s.%4$sowner
                  join pg_catalog.pg_database db on db.datname = pg_catalog.current_database()
                 where d.classid = 'pg_catalog.%2$s'::pg_catalog.regclass
                   and n.nspname <> 'pg_catalog' and (r.rolsuper or not pg_catalog.pg_has_role(db.datdba, r.oid, 'MEMBER'))
                   and not exists (select from pg_catalog.%2$s x
                                    where x.%4$snamespace = 'pg_catalog'::pg_catalog.regnamespace
                                      and x.%4$sname = %3$s.%4$sname)""".formatted(tag, catalog, alias, column)
                + extra;
    }

    /** Marks the guard's failure in the server's error ("invalid input syntax for type integer: ..."). */
    static final String GUARD_FAILED = "pgharvest: the objects of an extension changed";

    /** Sessions of databases with the same extensions in the same schemas share one names object. */
    private static final Map<ExtensionNames, ExtensionNames> SHARED = new ConcurrentHashMap<>();
    private static final int MAX_SHARED = 256;
    /** Guard texts a session keeps, by the members its round trips name. */
    private static final int MAX_GUARDS = 32;

    static final ExtensionObjects NONE = new ExtensionObjects(ExtensionNames.NONE, Map.of());

    private final ExtensionNames names;
    /** The OIDs each member name finds in its schema (a function's overloads: all of them). */
    private final Map<Member, List<Long>> oids;
    private final Map<Set<Member>, String> guards = new HashMap<>();

    private ExtensionObjects(ExtensionNames names, Map<Member, List<Long>> oids) {
        this.names = names;
        this.oids = oids;
    }

    ExtensionNames names() {
        return names;
    }

    /** Reads the members with {@code statement}, inside the caller's transaction. */
    static ExtensionObjects read(Statement statement) throws SQLException {
        try (ResultSet rs = statement.executeQuery(MEMBERS)) {
            return of(rs);
        }
    }

    /** The members from the rows of {@link #MEMBERS}. */
    static ExtensionObjects of(ResultSet rs) throws SQLException {
        var found = new HashMap<Member, List<Long>>();
        while (rs.next()) {
            var member = new Member(rs.getString(2), rs.getString(3), rs.getString(1).equals("f"));
            found.computeIfAbsent(member, m -> new ArrayList<>()).add(rs.getLong(4));
        }
        if (found.isEmpty()) {
            return NONE;
        }
        ExtensionNames names = ExtensionNames.of(found.keySet());
        if (SHARED.size() >= MAX_SHARED) {
            SHARED.clear();
        }
        names = SHARED.computeIfAbsent(names, n -> n);
        var oids = new HashMap<Member, List<Long>>();
        found.forEach((member, list) -> oids.put(member, list.stream().sorted().toList()));
        return new ExtensionObjects(names, Map.copyOf(oids));
    }

    /**
     * The statement sent before the metrics of a round trip that name {@code named}: it fails,
     * with {@link #GUARD_FAILED} in its error, unless those schema and object names still find
     * exactly the OIDs read with the members. One small catalog read per round trip, and none for
     * round trips that name no extension object.
     */
    String guard(Set<Member> named) {
        String guard = guards.get(named);
        if (guard == null) {
            if (guards.size() >= MAX_GUARDS) {
                guards.clear();
            }
            guard = guardText(named);
            guards.put(Set.copyOf(named), guard);
        }
        return guard;
    }

    private String guardText(Collection<Member> named) {
        var expected = new TreeSet<Long>();
        var found = new ArrayList<String>();
        for (Member m : named.stream().sorted(Comparator.comparing(Member::schema).thenComparing(Member::name)
                .thenComparing(Member::function)).toList()) {
            expected.addAll(oids.getOrDefault(m, List.of()));
            // By name and namespace: the catalogs' unique indexes (relname, relnamespace) and
            // (proname, proargtypes, pronamespace) find them without a scan.
            String namespace = "(select n.oid from pg_catalog.pg_namespace n where n.nspname = " + literal(m.schema()) + ")";
            found.add(m.function()
                    ? "select p.oid from pg_catalog.pg_proc p where p.proname = " + literal(m.name())
                            + " and p.pronamespace = " + namespace
                    : "select c.oid from pg_catalog.pg_class c where c.relname = " + literal(m.name())
                            + " and c.relnamespace = " + namespace);
        }
        String expectedText = String.join(",", expected.stream().map(String::valueOf).toList());
        return "select (case when (select coalesce(pg_catalog.string_agg(o.oid::text, ',' order by o.oid), '') from ("
                + String.join(" union all ", found) + ") o) = '" + expectedText + "' then '0' else '" + GUARD_FAILED
                + "' end)::int4 as extension_objects";
    }

    /** A constant the server reads as {@code text} whatever standard_conforming_strings says. */
    private static String literal(String text) {
        return "E'" + text.replace("\\", "\\\\").replace("'", "''") + "'";
    }

    /** Whether {@code failure} is the guard's. */
    static boolean isGuardFailure(SQLException failure) {
        String message = failure.getMessage();
        return message != null && message.contains(GUARD_FAILED);
    }
}
