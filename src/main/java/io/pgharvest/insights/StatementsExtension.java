package io.pgharvest.insights;

import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.SqlReader;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * pg_stat_statements as installed in the source's database: the schema it lives in, its version
 * and the columns its view has, read once per collector (and again after a read failed because
 * the extension was dropped, moved or updated). The statistics query is built for exactly these
 * columns, so one code path serves every version from 1.9 (PostgreSQL 14) on.
 *
 * @param schema the extension's schema
 * @param version the installed extension version
 * @param counters the counters this version has, each with the column it is read from
 * @param statsSince whether entries carry {@code stats_since} (1.11, PostgreSQL 17)
 */
record StatementsExtension(String schema, String version, List<ReadCounter> counters, boolean statsSince) {

    /** A counter and the column of this version it is read from. */
    record ReadCounter(StatementCounter counter, String column) {
    }

    private static final String FIND_SQL = """
            select n.nspname::text as schema, e.extversion::text as version,
                   (select string_agg(a.attname::text, ',') from pg_attribute a
                     where a.attrelid = to_regclass(format('%I.pg_stat_statements', n.nspname))
                       and a.attnum > 0 and not a.attisdropped) as columns
              from pg_extension e join pg_namespace n on n.oid = e.extnamespace
             where e.extname = 'pg_stat_statements'""";

    /** SQLStates after which the extension is looked up again: undefined table, function or column. */
    static final Set<String> CHANGED_STATES = Set.of("42P01", "42883", "42703");

    /**
     * Looks the extension up in the session's database.
     *
     * @throws NativeMetric.Unavailable when it is not installed there, or older than 1.9
     */
    static StatementsExtension find(SqlReader sql, String database) throws SQLException, NativeMetric.Unavailable {
        List<Map<String, Object>> rows = sql.query(FIND_SQL);
        if (rows.isEmpty()) {
            throw new NativeMetric.Unavailable("pg_stat_statements is not installed in database " + database
                    + " (CREATE EXTENSION pg_stat_statements there; the server needs it in"
                    + " shared_preload_libraries)");
        }
        Map<String, Object> row = rows.getFirst();
        String columnList = (String) row.get("columns");
        Set<String> columns = columnList == null ? Set.of() : Set.of(columnList.split(","));
        String version = (String) row.get("version");
        if (!columns.contains("toplevel")) {
            throw new NativeMetric.Unavailable("pg_stat_statements " + version + " in database " + database
                    + " is older than 1.9 (ALTER EXTENSION pg_stat_statements UPDATE)");
        }
        var counters = new ArrayList<ReadCounter>();
        for (StatementCounter counter : StatementCounter.ALL) {
            counter.columns().stream().filter(columns::contains).findFirst()
                    .ifPresent(column -> counters.add(new ReadCounter(counter, column)));
        }
        return new StatementsExtension((String) row.get("schema"), version, List.copyOf(counters),
                columns.contains("stats_since"));
    }

    /**
     * The query ids of the session's database with a hash of each text, and the text itself only
     * for ids not among the known ones (parameter 1, int8[]) with the same hash (parameter 2,
     * int4[]). One row per query id (roles share a text). Without {@code includeOwnStatements} the
     * ids that only the session's login role and the role it acts as ran are left out, as
     * query_stats leaves their entries out.
     */
    String textsSql(boolean includeOwnStatements) {
        String quoted = quotedSchema();
        return """
                select s.queryid, hashtext(s.query) as text_hash,
                       case when k.text_hash is distinct from hashtext(s.query) then s.query end as query
                  from (select distinct on (p.queryid) p.queryid::int8 as queryid, p.query
                          from %s.pg_stat_statements(true) p
                         where p.dbid = (select d.oid from pg_catalog.pg_database d where d.datname = current_database())
                           and p.queryid is not null%s
                         order by p.queryid) s
                  left join unnest(?::int8[], ?::int4[]) as k(queryid, text_hash) on k.queryid = s.queryid
                """.formatted(quoted, includeOwnStatements ? "" : "\n                           and p.userid not in"
                        + " (select o.oid from pg_catalog.pg_roles o where o.rolname in (session_user, current_user))");
    }

    /**
     * The texts of several databases of the instance at once (query_texts' read per instance,
     * {@link InstanceTexts}): one row per database and query id of the databases named (parameter 1,
     * text[]), with a hash of its text and the text itself unless the (database, query id) is among
     * the known ones (parameters 2-4: text[], int8[], int4[]) with the same hash; ordered by
     * database. Without {@code includeOwnStatements} the entries of the reading session's roles are
     * left out, and each row carries the names of the roles whose entries hold the id
     * ({@code roles}), so that a member logged in as another role leaves out the ids only its
     * roles ran; with it, {@code roles} is null.
     */
    String instanceTextsSql(boolean includeOwnStatements) {
        return """
                select d.datname::text as datname, s.queryid, hashtext(s.query) as text_hash,
                       case when k.text_hash is distinct from hashtext(s.query) then s.query end as query, s.roles
                  from (select distinct on (p.dbid, p.queryid) p.dbid, p.queryid::int8 as queryid, p.query, %s as roles
                          from %s.pg_stat_statements(true) p%s
                         where p.dbid in (select o.oid from pg_catalog.pg_database o where o.datname = any(?::text[]))
                           and p.queryid is not null%s
                         order by p.dbid, p.queryid) s
                  join pg_catalog.pg_database d on d.oid = s.dbid
                  left join unnest(?::text[], ?::int8[], ?::int4[]) as k(datname, queryid, text_hash)
                    on k.datname = d.datname and k.queryid = s.queryid
                 order by d.datname
                """.formatted(
                includeOwnStatements ? "null::text[]"
                        : "array_agg(coalesce(r.rolname::text, p.userid::text)) over (partition by p.dbid, p.queryid)",
                quotedSchema(),
                includeOwnStatements ? "" : "\n                          left join pg_catalog.pg_roles r on r.oid = p.userid",
                includeOwnStatements ? "" : "\n                           and p.userid not in"
                        + " (select o.oid from pg_catalog.pg_roles o where o.rolname in (session_user, current_user))");
    }

    /**
     * The statistics without texts ({@code pg_stat_statements(false)}: the server does not read its
     * query text file), with the extension's dealloc count and last reset on every row, and one row
     * of nulls when there are no entries. Times as epoch microseconds, counters as float8 (exact for
     * whole numbers below 2^53). Without {@code includeOwnStatements} the entries of the session's
     * login role and of the role it acts as are left out: pgharvest's own reads are not the
     * database's workload.
     *
     * @param wholeInstance every database's entries, each row with its {@code datname} (the view is
     *     instance-wide: any database where the extension is created shows them all), instead of
     *     the session's database only
     */
    String statisticsSql(boolean includeOwnStatements, boolean wholeInstance) {
        String quoted = quotedSchema();
        var sql = new StringBuilder("""
                select i.dealloc::int8 as dealloc, (extract(epoch from i.stats_reset) * 1e6)::int8 as stats_reset,
                       s.*
                  from %s.pg_stat_statements_info i
                  left join lateral (
                    select s.queryid::int8 as queryid, s.userid::int8 as userid, s.toplevel,
                           coalesce(r.rolname::text, s.userid::text) as rolname""".formatted(quoted));
        if (wholeInstance) {
            sql.append(",\n       d.datname::text as datname");
        }
        sql.append(statsSince ? ",\n       (extract(epoch from s.stats_since) * 1e6)::int8 as stats_since"
                : ",\n       null::int8 as stats_since");
        for (ReadCounter read : counters) {
            sql.append(",\n       s.").append(read.column()).append("::float8 as ").append(read.counter().field());
        }
        sql.append("\n      from ").append(quoted).append(".pg_stat_statements(false) s")
                .append("\n      left join pg_catalog.pg_roles r on r.oid = s.userid");
        if (wholeInstance) {
            sql.append("\n      join pg_catalog.pg_database d on d.oid = s.dbid")
                    .append("\n     where s.queryid is not null");
        } else {
            sql.append("\n     where s.dbid = (select d.oid from pg_catalog.pg_database d where d.datname = current_database())")
                    .append("\n       and s.queryid is not null");
        }
        if (!includeOwnStatements) {
            sql.append("\n       and s.userid not in (select o.oid from pg_catalog.pg_roles o"
                    + " where o.rolname in (session_user, current_user))");
        }
        sql.append("\n  ) s on true");
        // By database, so that the split looks each database up once (StatementSnapshot.byDatabase).
        return (wholeInstance ? sql.append("\n order by s.datname") : sql).toString();
    }

    private String quotedSchema() {
        return '"' + schema.replace("\"", "\"\"") + '"';
    }
}
