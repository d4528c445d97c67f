package io.pgharvest.model.sql;

import io.pgharvest.model.sql.SqlLexer.Kind;
import io.pgharvest.model.sql.SqlLexer.Token;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The objects of a database's installed extensions by name, and the qualification of a metric's
 * unqualified names of them: {@code from pg_stat_statements} becomes
 * {@code from "public"."pg_stat_statements"} where the extension lives in {@code public}.
 *
 * <p>Why: monitoring sessions search {@code pg_catalog} only (docs/security.md, "The search path is
 * pinned"), so that a database owner cannot put an object of theirs in front of one a metric
 * reads; but pgwatch's metrics name extension objects without a schema, and would then read
 * nothing. Naming the schema the object is in, as the server's catalog records it, keeps both:
 * the metric reads the extension's object and no other.
 *
 * <p>Only names in the places where the server reads a relation or calls a function are
 * qualified: a relation right after {@code FROM}, {@code JOIN} (also {@code LATERAL},
 * {@code ONLY}) or a comma of a FROM list, and a name followed by {@code (}. A name after or
 * before a dot (already qualified, or an alias's column), after {@code AS} or {@code ::}, and the
 * name of a {@code WITH} query are left alone, and so is everything inside constants and
 * comments, which the one lexer ({@link SqlLexer}) keeps apart. A name that two extensions' objects
 * share in different schemas is left alone too (which one would be a guess).
 *
 * <p>Immutable; equal contents are equal objects, so sessions of databases with the same extensions
 * share verdicts (kind.postgres.QueryPipeline).
 */
public final class ExtensionNames {

    /** No extension objects: every text stays as it is. */
    public static final ExtensionNames NONE = new ExtensionNames(List.of());

    /** Words that end a FROM list at their level of parentheses. */
    private static final Set<String> FROM_ENDS = Set.of("where", "group", "having", "window", "order", "limit",
            "offset", "union", "intersect", "except", "fetch", "for", "returning", "on", "using");
    /** Functions whose parentheses hold a FROM that reads no table. */
    private static final Set<String> FROM_NOT_A_CLAUSE = Set.of("extract", "substring", "trim", "overlay");

    /** One object of an extension: a relation (table, view, ...) or a function, and its schema. */
    public record Member(String schema, String name, boolean function) {
    }

    /** A text with its names qualified, and the members it names (empty when nothing changed). */
    public record Qualified(String sql, Set<Member> named) {

        public Qualified {
            named = Set.copyOf(named);
        }

        public boolean changed() {
            return !named.isEmpty();
        }
    }

    /**
     * Objects of extensions that monitoring metrics read (pgwatch's among them), by extension: what
     * the import reports ({@link #KNOWN}); the engine reads a database's own from its catalog.
     */
    private static final Map<String, List<String>> KNOWN_OBJECTS = Map.of(
            "pg_stat_statements", List.of("pg_stat_statements", "pg_stat_statements_info"),
            "pg_buffercache", List.of("pg_buffercache", "pg_buffercache_pages", "pg_buffercache_summary",
                    "pg_buffercache_usage_counts"),
            "pgstattuple", List.of("pgstattuple", "pgstattuple_approx", "pgstatindex", "pgstatginindex",
                    "pgstathashindex", "pg_relpages"),
            "pg_stat_kcache", List.of("pg_stat_kcache", "pg_stat_kcache_detail"),
            "pg_qualstats", List.of("pg_qualstats", "pg_qualstats_all", "pg_qualstats_pretty", "pg_qualstats_indexes",
                    "pg_qualstats_indexes_ddl", "pg_qualstats_by_query", "pg_qualstats_index_advisor",
                    "pg_qualstats_example_query", "pg_qualstats_example_queries", "pg_qualstats_names"),
            "pg_wait_sampling", List.of("pg_wait_sampling_current", "pg_wait_sampling_history",
                    "pg_wait_sampling_profile"),
            "pg_stat_monitor", List.of("pg_stat_monitor"),
            "pg_freespacemap", List.of("pg_freespace"),
            "pg_visibility", List.of("pg_visibility_map_summary", "pg_visibility_map", "pg_visibility"));

    /**
     * The well-known objects of extensions, with the extension's name where a schema would be:
     * {@link #namedIn} says which of them a text names without a schema.
     */
    public static final ExtensionNames KNOWN = new ExtensionNames(KNOWN_OBJECTS.entrySet().stream()
            .flatMap(e -> e.getValue().stream().flatMap(name -> Stream.of(
                    new Member(e.getKey(), name, false), new Member(e.getKey(), name, true))))
            .toList());

    private final Map<String, String> relationSchemas;
    private final Map<String, String> functionSchemas;
    private final int hash;

    private ExtensionNames(Collection<Member> members) {
        this.relationSchemas = unambiguous(members, false);
        this.functionSchemas = unambiguous(members, true);
        this.hash = relationSchemas.hashCode() * 31 + functionSchemas.hashCode();
    }

    /** The names of {@code members}; an object in {@code pg_catalog} needs no schema and is left out. */
    public static ExtensionNames of(Collection<Member> members) {
        var kept = members.stream().filter(m -> !m.schema().equals("pg_catalog")).toList();
        return kept.isEmpty() ? NONE : new ExtensionNames(kept);
    }

    private static Map<String, String> unambiguous(Collection<Member> members, boolean functions) {
        var schemas = new HashMap<String, String>();
        var ambiguous = new HashSet<String>();
        for (Member m : members) {
            if (m.function() == functions) {
                String before = schemas.putIfAbsent(m.name(), m.schema());
                if (before != null && !before.equals(m.schema())) {
                    ambiguous.add(m.name());
                }
            }
        }
        ambiguous.forEach(schemas::remove);
        return Map.copyOf(schemas);
    }

    public boolean isEmpty() {
        return relationSchemas.isEmpty() && functionSchemas.isEmpty();
    }

    /**
     * {@code sql} with every unqualified name of a member in a relation or call position
     * schema-qualified and quoted. A text that does not lex is returned as it is (the friendly
     * check refuses it with the reason).
     */
    public Qualified qualify(String sql, boolean standardConformingStrings) {
        if (isEmpty() || sql == null) {
            return new Qualified(sql, Set.of());
        }
        SqlLexer.Lexed lexed = SqlLexer.lex(sql, standardConformingStrings);
        if (lexed.problem().isPresent()) {
            return new Qualified(sql, Set.of());
        }
        return new Scan(lexed.code()).qualify(sql);
    }

    /** The member names of {@code sql} that {@link #qualify} would qualify, in order of appearance. */
    public Set<Member> namedIn(String sql) {
        return qualify(sql, true).named();
    }

    /** A text the server reads as the name {@code name}. */
    public static String quoted(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    /** One pass over a text's code tokens. */
    private final class Scan {
        private final List<Token> t;
        private final Set<String> withNames = new HashSet<>();
        private final Deque<boolean[]> fromFrames = new ArrayDeque<>();

        Scan(List<Token> code) {
            this.t = code;
            for (int i = 0; i + 1 < t.size(); i++) {
                int after = i + 1;
                if (t.get(after).is("(")) {
                    after = closing(after) + 1; // with q(a, b) as (...)
                }
                if (after + 1 < t.size() && t.get(after).word().equals("as") && (t.get(after + 1).is("(")
                        || t.get(after + 1).word().equals("materialized") || t.get(after + 1).word().equals("not"))) {
                    String name = nameOf(t.get(i));
                    if (name != null) {
                        withNames.add(name);
                    }
                }
            }
        }

        /** The index of the ")" that closes the "(" at {@code open}, or the last index. */
        private int closing(int open) {
            int depth = 0;
            for (int i = open; i < t.size(); i++) {
                if (t.get(i).is("(")) {
                    depth++;
                } else if (t.get(i).is(")") && --depth == 0) {
                    return i;
                }
            }
            return t.size() - 1;
        }

        Qualified qualify(String sql) {
            var out = new StringBuilder(sql.length() + 32);
            var named = new LinkedHashSet<Member>();
            int copied = 0;
            fromFrames.push(new boolean[1]);
            boolean relationPosition = false;
            for (int i = 0; i < t.size(); i++) {
                Token tok = t.get(i);
                boolean wasRelationPosition = relationPosition;
                relationPosition = false;
                if (tok.is("(")) {
                    fromFrames.push(new boolean[1]);
                    continue;
                }
                if (tok.is(")")) {
                    if (fromFrames.size() > 1) {
                        fromFrames.pop();
                    }
                    continue;
                }
                if (tok.is(",")) {
                    relationPosition = fromFrames.peek()[0];
                    continue;
                }
                String w = tok.word();
                if (w.equals("from") && fromIsClause(i) || w.equals("join")) {
                    fromFrames.peek()[0] = true;
                    relationPosition = true;
                    continue;
                }
                if (wasRelationPosition && (w.equals("lateral") || w.equals("only"))) {
                    relationPosition = true;
                    continue;
                }
                if (FROM_ENDS.contains(w)) {
                    fromFrames.peek()[0] = false;
                }
                Member member = memberAt(i, wasRelationPosition);
                if (member != null) {
                    named.add(member);
                    out.append(sql, copied, tok.start()).append(quoted(member.schema())).append('.')
                            .append(quoted(member.name()));
                    copied = tok.end();
                }
            }
            if (named.isEmpty()) {
                return new Qualified(sql, Set.of());
            }
            out.append(sql, copied, sql.length());
            return new Qualified(out.toString(), named);
        }

        /** The member token {@code i} names unqualified in a relation or call position, or null. */
        private Member memberAt(int i, boolean relationPosition) {
            String name = nameOf(t.get(i));
            if (name == null || withNames.contains(name)) {
                return null;
            }
            if (i > 0 && (t.get(i - 1).is(".") || t.get(i - 1).is("::") || t.get(i - 1).word().equals("as"))) {
                return null;
            }
            boolean call = i + 1 < t.size() && t.get(i + 1).is("(");
            if (i + 1 < t.size() && t.get(i + 1).is(".")) {
                return null;
            }
            String schema = call ? functionSchemas.get(name) : relationPosition ? relationSchemas.get(name) : null;
            return schema == null ? null : new Member(schema, name, call);
        }

        /** FROM as a clause, not inside extract(... from ...) or IS [NOT] DISTINCT FROM. */
        private boolean fromIsClause(int i) {
            int open = openerOfInnermost(i);
            if (open > 0 && FROM_NOT_A_CLAUSE.contains(t.get(open - 1).word())) {
                return false;
            }
            if (i >= 2 && t.get(i - 1).word().equals("distinct")) {
                String before = t.get(i - 2).word();
                return !(before.equals("is") || before.equals("not"));
            }
            return true;
        }

        /** The index of the "(" that encloses token {@code i}, or -1 at the top level. */
        private int openerOfInnermost(int i) {
            int depth = 0;
            for (int j = i - 1; j >= 0; j--) {
                if (t.get(j).is(")")) {
                    depth++;
                } else if (t.get(j).is("(")) {
                    if (depth == 0) {
                        return j;
                    }
                    depth--;
                }
            }
            return -1;
        }

        /** A word as the server folds it, a quoted name as written, or null for other tokens. */
        private static String nameOf(Token token) {
            if (token.kind() == Kind.WORD) {
                return token.word();
            }
            if (token.kind() == Kind.QUOTED_IDENTIFIER && token.text().startsWith("\"")) {
                try {
                    return token.value();
                } catch (IllegalArgumentException e) {
                    return null;
                }
            }
            return null;
        }
    }

    @Override
    public boolean equals(Object other) {
        return this == other || other instanceof ExtensionNames o && hash == o.hash
                && relationSchemas.equals(o.relationSchemas) && functionSchemas.equals(o.functionSchemas);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "ExtensionNames" + relationSchemas + functionSchemas;
    }
}
