package io.pgharvest.model.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The boundary of metric SQL: one statement of a kind that only reads, calling no function whose
 * effect outlives the metric or reaches beyond its transaction.
 *
 * <p>This check is the friendly first line: it says early, with a reason, why a metric is
 * refused. The boundary is PostgreSQL's (docs/security.md): the engine sends each metric as one
 * Parse message of a subquery inside {@code BEGIN READ ONLY ... ROLLBACK}, releases advisory
 * locks after it, and refuses superuser logins by default, so a spelling this check misses
 * still cannot write, end the transaction or leave anything in the session.
 *
 * <p>The text is read by {@link SqlLexer}, so a keyword or a semicolon inside a string or a comment
 * is not mistaken for code, and SQL handed to query_to_xml as a constant is read as the value the
 * server gives that constant (escapes applied).
 */
public final class MetricSql {

    /** Statement kinds a PostgreSQL source may run. */
    private static final Set<String> POSTGRES_KINDS = Set.of("select", "with", "values", "table", "show");
    /** A pooler's admin console only gets SHOW: its other commands act (PAUSE, KILL, ...). */
    private static final Set<String> CONSOLE_KINDS = Set.of("show");

    /**
     * Words that make a reading statement write or create something: data-modifying WITH
     * clauses, SELECT INTO, row locks (FOR UPDATE). Other commands cannot hide inside one
     * statement that starts with a reading keyword.
     */
    private static final Set<String> WRITING_WORDS = Set.of("insert", "update", "delete", "merge", "into");

    /**
     * Functions whose effect escapes a read-only transaction, and built-ins that run SQL given to
     * them as text (query_to_xml and relatives, ts_stat, dblink), which the check cannot read.
     * The real boundary is the server's (docs/security.md); this list only says why early.
     *
     * <p>Functions whose effect escapes a read-only transaction that is rolled back: signals to
     * other sessions, server-side files and programs, replication state, statistics resets,
     * session advisory locks, connections to other servers, configuration changes.
     */
    private static final Set<String> FORBIDDEN_FUNCTIONS = Set.of("set_config", "pg_terminate_backend",
            "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile", "pg_switch_wal", "pg_switch_xlog",
            "pg_promote", "pg_create_restore_point", "pg_start_backup", "pg_stop_backup", "pg_backup_start",
            "pg_backup_stop", "pg_advisory_lock", "pg_advisory_lock_shared", "pg_try_advisory_lock",
            "pg_try_advisory_lock_shared", "pg_advisory_unlock", "pg_advisory_unlock_shared",
            "pg_advisory_unlock_all", "pg_notify", "pg_file_write", "pg_file_rename", "pg_file_unlink",
            "pg_file_sync", "pg_create_physical_replication_slot", "pg_create_logical_replication_slot",
            "pg_drop_replication_slot", "pg_copy_physical_replication_slot", "pg_copy_logical_replication_slot",
            "pg_replication_slot_advance", "pg_logical_slot_get_changes", "pg_logical_slot_get_binary_changes",
            "pg_logical_emit_message", "pg_wal_replay_pause", "pg_wal_replay_resume", "pg_xlog_replay_pause",
            "pg_xlog_replay_resume", "pg_log_backend_memory_contexts", "pg_import_system_collations",
            "pg_stat_statements_reset", "setval", "nextval", "txid_current", "pg_current_xact_id", "ts_stat",
            "pg_log_standby_snapshot");
    /**
     * Server-file functions: refused in metrics, whose rows reach sinks (a file's content would be
     * published). pgharvest's own native metrics may read server log files with them
     * ({@link #problemOfNativeQuery}); the pg_ls_*dir listings pg_monitor may call stay allowed.
     */
    private static final Set<String> SERVER_FILE_FUNCTIONS = Set.of("pg_read_file", "pg_read_binary_file",
            "pg_ls_dir", "pg_stat_file");
    /** Function families forbidden by prefix (every member acts). */
    private static final List<String> FORBIDDEN_PREFIXES = List.of("pg_stat_reset", "pg_replication_origin_",
            "dblink", "lo_", "pg_background");
    /**
     * Built-ins that run SQL given to them as text. Allowed (the catalog's stat_statements needs
     * query_to_xml), but then every string constant of the metric is held to the same rules as
     * its code. Text assembled from pieces still escapes this; the server's boundary does not
     * depend on it (docs/security.md).
     */
    private static final List<String> DYNAMIC_SQL_PREFIXES = List.of("query_to_xml", "cursor_to_xml");

    /** Marks a word that was a quoted identifier: it names something, it is never a keyword. */
    private static final String QUOTED = "\"";

    private MetricSql() {
    }

    /** Why {@code sql} may not be a metric of any source kind, or empty when it may. */
    public static Optional<String> problem(String sql) {
        return problem(sql, POSTGRES_KINDS, true);
    }

    /**
     * Why pgharvest's own query of a native metric may not be sent: the rules of metric SQL, except
     * that it may read server files (the server log through SQL, with pg_read_server_files).
     */
    public static Optional<String> problemOfNativeQuery(String sql) {
        return problem(sql, POSTGRES_KINDS, false);
    }

    /**
     * Why {@code sql} may not run on a pooler's admin console, or empty when it may.
     * The engine asks this, or {@link #problem}, before it sends a metric, so SQL stored before
     * the rule existed cannot escape either.
     */
    public static Optional<String> problemOnConsole(String sql) {
        return problem(sql, CONSOLE_KINDS, true);
    }

    private static Optional<String> problem(String sql, Set<String> kinds, boolean refuseServerFiles) {
        if (sql == null || sql.isBlank()) {
            return Optional.of("the query must not be empty");
        }
        SqlLexer.Lexed lexed = SqlLexer.lex(sql);
        if (lexed.problem().isPresent()) {
            return lexed.problem();
        }
        List<SqlLexer.Token> code = lexed.code();
        Optional<String> escapedName = escapedName(code);
        if (escapedName.isPresent()) {
            return escapedName;
        }
        List<List<String>> statements;
        try {
            statements = statements(code);
        } catch (IllegalArgumentException e) {
            return Optional.of("has a quoted name the server refuses: " + e.getMessage());
        }
        if (statements.isEmpty()) {
            return Optional.of("the query must not be empty");
        }
        if (statements.size() > 1) {
            return Optional.of("must be exactly one statement, found " + statements.size()
                    + " (separated by ';'): a metric runs inside pgharvest's read-only transaction");
        }
        List<String> words = statements.getFirst();
        String kind = words.getFirst().startsWith(QUOTED) ? words.getFirst().substring(1) : words.getFirst();
        if (!kinds.contains(kind)) {
            return Optional.of("must be a reading statement (" + String.join(", ", sorted(kinds)) + "), not "
                    + kind.toUpperCase(Locale.ROOT));
        }
        Optional<String> rowLock = rowLock(words);
        if (rowLock.isPresent()) {
            return rowLock;
        }
        if (refuseServerFiles) {
            Optional<String> file = words.stream().map(w -> w.startsWith(QUOTED) ? w.substring(1) : w)
                    .filter(SERVER_FILE_FUNCTIONS::contains).findFirst();
            if (file.isPresent()) {
                return Optional.of("must only read the database: calling " + file.get() + "() is not allowed in a"
                        + " metric, it reads files of the server");
            }
        }
        Optional<String> inCode = wordProblem(words.subList(1, words.size()));
        if (inCode.isPresent() || words.stream().noneMatch(MetricSql::runsSqlText)) {
            return inCode;
        }
        return problemInSqlText(code);
    }

    /** What the SQL handed as constants to a built-in that runs it would do. */
    private static Optional<String> problemInSqlText(List<SqlLexer.Token> code) {
        for (SqlLexer.Token constant : code) {
            if (constant.kind() != SqlLexer.Kind.STRING) {
                continue;
            }
            try {
                SqlLexer.Lexed inner = SqlLexer.lex(constant.value());
                if (inner.problem().isPresent()) {
                    return Optional.of("runs SQL given as text, and a constant of it " + inner.problem().get());
                }
                for (List<String> innerWords : statements(inner.code())) {
                    Optional<String> problem = wordProblem(innerWords).or(() -> rowLock(innerWords));
                    if (problem.isPresent()) {
                        return problem.map(p -> p + " (in SQL given as text)");
                    }
                }
            } catch (IllegalArgumentException e) {
                return Optional.of("runs SQL given as text, and a constant of it is refused: " + e.getMessage());
            }
        }
        return Optional.empty();
    }

    private static boolean runsSqlText(String word) {
        return DYNAMIC_SQL_PREFIXES.stream().anyMatch(word::startsWith);
    }

    /** Writing words and forbidden function names among {@code tokens}. */
    private static Optional<String> wordProblem(List<String> tokens) {
        for (String token : tokens) {
            boolean quoted = token.startsWith(QUOTED);
            String word = quoted ? token.substring(1) : token;
            if (!quoted && WRITING_WORDS.contains(word)) {
                return Optional.of("must only read: '" + word.toUpperCase(Locale.ROOT) + "' is not allowed in a metric");
            }
            if (forbiddenFunction(word)) {
                return Optional.of("must only read: calling " + word + "() is not allowed in a metric, its effect"
                        + " outlives the metric");
            }
        }
        return Optional.empty();
    }

    /** FOR SHARE and FOR KEY SHARE lock rows (FOR UPDATE is caught by its word). */
    private static Optional<String> rowLock(List<String> words) {
        for (int i = 0; i + 1 < words.size(); i++) {
            if (words.get(i).equals("for") && (words.get(i + 1).equals("share")
                    || words.get(i + 1).equals("key") && i + 2 < words.size() && words.get(i + 2).equals("share"))) {
                return Optional.of("must only read: 'FOR SHARE' locks rows");
            }
        }
        return Optional.empty();
    }

    private static boolean forbiddenFunction(String word) {
        if (FORBIDDEN_FUNCTIONS.contains(word)) {
            return true;
        }
        for (String prefix : FORBIDDEN_PREFIXES) {
            if (word.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private static List<String> sorted(Set<String> kinds) {
        return kinds.stream().map(k -> k.toUpperCase(Locale.ROOT)).sorted().toList();
    }

    /**
     * The statements of lexed SQL as lists of words (keywords and names folded as the server folds
     * them; quoted names marked with {@link #QUOTED} and kept as written), leaving out comments,
     * constants and punctuation. Leading parentheses do not count, so {@code (select 1) union
     * (select 2)} starts with SELECT.
     */
    private static List<List<String>> statements(List<SqlLexer.Token> code) {
        var statements = new ArrayList<List<String>>();
        var words = new ArrayList<String>();
        for (SqlLexer.Token token : code) {
            if (token.is(";")) {
                if (!words.isEmpty()) {
                    statements.add(List.copyOf(words));
                    words.clear();
                }
            } else if (token.kind() == SqlLexer.Kind.WORD) {
                words.add(token.word());
            } else if (token.kind() == SqlLexer.Kind.QUOTED_IDENTIFIER) {
                // A quoted name is compared as written: "PG_TERMINATE_BACKEND" is another function.
                words.add(QUOTED + token.value());
            }
        }
        if (!words.isEmpty()) {
            statements.add(List.copyOf(words));
        }
        return statements;
    }

    /**
     * U&"..." names may spell any function with escapes ({@code U&"\0070g_..."}); a metric writes
     * its names plainly.
     */
    private static Optional<String> escapedName(List<SqlLexer.Token> code) {
        return code.stream().filter(t -> t.kind() == SqlLexer.Kind.QUOTED_IDENTIFIER && !t.text().startsWith("\""))
                .findFirst().map(t -> "has a Unicode-escaped name (U&\"...\"): write names plainly");
    }
}
