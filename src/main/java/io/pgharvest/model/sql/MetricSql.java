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
 * locks after it, and refuses superuser logins by default, so a spelling this scanner misses
 * still cannot write, end the transaction or leave anything in the session.
 *
 * <p>The scanner understands PostgreSQL's lexical structure (comments, nested block comments,
 * string constants with their escapes, dollar quoting, quoted identifiers), so a keyword or a
 * semicolon inside a string is not mistaken for code.
 */
public final class MetricSql {

    /** Statement kinds a PostgreSQL source may run. */
    private static final Set<String> POSTGRES_KINDS = Set.of("select", "with", "values", "table", "show");
    /** Admin consoles (pgbouncer, pgpool) only get SHOW: their other commands act (PAUSE, KILL, ...). */
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

    /** From here on, every character can be part of a name in PostgreSQL's lexer. */
    private static final char NON_ASCII = 0x80;

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
     * Why {@code sql} may not run on an admin console (pgbouncer, pgpool), or empty when it may.
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
        List<List<String>> statements;
        Scanner scanner = new Scanner(sql);
        try {
            statements = scanner.statements();
        } catch (IllegalArgumentException e) {
            return Optional.of(e.getMessage());
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
        for (String constant : scanner.constants()) {
            try {
                for (List<String> inner : new Scanner(constant).statements()) {
                    Optional<String> problem = wordProblem(inner).or(() -> rowLock(inner));
                    if (problem.isPresent()) {
                        return problem.map(p -> p + " (in SQL given as text)");
                    }
                }
            } catch (IllegalArgumentException e) {
                return Optional.of("runs SQL given as text, and a constant of it " + e.getMessage());
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
     * Splits SQL into statements of lower-cased words (keywords and identifiers, quoted ones
     * unquoted but kept as written), skipping comments, constants and punctuation. Leading
     * parentheses do not count, so {@code (select 1) union (select 2)} starts with SELECT.
     */
    private static final class Scanner {

        private final String sql;
        private final List<String> constants = new ArrayList<>();
        private int at;

        Scanner(String sql) {
            this.sql = sql;
        }

        /** The string constants' texts met by {@link #statements()} (quotes and tags removed, escapes kept). */
        List<String> constants() {
            return constants;
        }

        List<List<String>> statements() {
            var statements = new ArrayList<List<String>>();
            var words = new ArrayList<String>();
            while (at < sql.length()) {
                char c = sql.charAt(at);
                if (c == ';') {
                    at++;
                    if (!words.isEmpty()) {
                        statements.add(List.copyOf(words));
                        words.clear();
                    }
                } else if (c == '-' && peek(1) == '-') {
                    skipLineComment();
                } else if (c == '/' && peek(1) == '*') {
                    skipBlockComment();
                } else if (c == '\'') {
                    skipString(isEscapeStringPrefix());
                } else if (c == '"') {
                    refuseUnicodeEscapes();
                    words.add(quotedIdentifier());
                } else if (c == '$' && dollarTag() != null) {
                    skipDollarQuoted(dollarTag());
                } else if (Character.isLetter(c) || c == '_' || c >= NON_ASCII) {
                    words.add(word());
                } else {
                    at++;
                }
            }
            if (!words.isEmpty()) {
                statements.add(List.copyOf(words));
            }
            return statements;
        }

        /**
         * PostgreSQL reads every non-ASCII character as part of a name (its lexer works on bytes,
         * and all bytes of a multi-byte character are above 0x7F), not only letters.
         */
        private static boolean isNameChar(char c) {
            return Character.isLetterOrDigit(c) || c == '_' || c >= NON_ASCII;
        }

        /**
         * U&"..." names may spell any function with escapes ({@code U&"\0070g_..."}); a metric
         * writes its names plainly.
         */
        private void refuseUnicodeEscapes() {
            if (at >= 2 && sql.charAt(at - 1) == '&' && (sql.charAt(at - 2) == 'u' || sql.charAt(at - 2) == 'U')) {
                throw new IllegalArgumentException("has a Unicode-escaped name (U&\"...\"): write names plainly");
            }
        }

        private char peek(int ahead) {
            int index = at + ahead;
            return index < sql.length() ? sql.charAt(index) : '\0';
        }

        private String word() {
            int start = at;
            while (at < sql.length() && (isNameChar(sql.charAt(at)) || sql.charAt(at) == '$')) {
                at++;
            }
            return sql.substring(start, at).toLowerCase(Locale.ROOT);
        }

        /** E'...' (and e'...') allow backslash escapes; the prefix letter was already read as a word. */
        private boolean isEscapeStringPrefix() {
            if (at == 0) {
                return false;
            }
            char before = sql.charAt(at - 1);
            boolean standalone = at < 2 || !(Character.isLetterOrDigit(sql.charAt(at - 2)) || sql.charAt(at - 2) == '_');
            return (before == 'e' || before == 'E') && standalone;
        }

        private void skipString(boolean backslashEscapes) {
            at++;
            int start = at;
            while (at < sql.length()) {
                char c = sql.charAt(at);
                if (backslashEscapes && c == '\\') {
                    at += 2;
                } else if (c == '\'' && peek(1) == '\'') {
                    at += 2;
                } else if (c == '\'') {
                    constants.add(sql.substring(start, at).replace("''", "'"));
                    at++;
                    return;
                } else {
                    at++;
                }
            }
            throw new IllegalArgumentException("has a string constant that is never closed");
        }

        private String quotedIdentifier() {
            var name = new StringBuilder();
            at++;
            while (at < sql.length()) {
                char c = sql.charAt(at);
                if (c == '"' && peek(1) == '"') {
                    name.append('"');
                    at += 2;
                } else if (c == '"') {
                    at++;
                    // A quoted name is compared as written: "PG_TERMINATE_BACKEND" is another function.
                    return QUOTED + name;
                } else {
                    name.append(c);
                    at++;
                }
            }
            throw new IllegalArgumentException("has a quoted identifier that is never closed");
        }

        /** A line comment ends at a line feed or a carriage return, as in PostgreSQL's lexer. */
        private void skipLineComment() {
            while (at < sql.length() && sql.charAt(at) != '\n' && sql.charAt(at) != '\r') {
                at++;
            }
        }

        private void skipBlockComment() {
            int depth = 0;
            while (at < sql.length()) {
                if (sql.startsWith("/*", at)) {
                    depth++;
                    at += 2;
                } else if (sql.startsWith("*/", at)) {
                    depth--;
                    at += 2;
                    if (depth == 0) {
                        return;
                    }
                } else {
                    at++;
                }
            }
            throw new IllegalArgumentException("has a comment that is never closed");
        }

        /** The $tag$ starting here, or null when this '$' is not one (e.g. a $1 parameter). */
        private String dollarTag() {
            if (at > 0 && isNameChar(sql.charAt(at - 1))) {
                return null; // part of an identifier such as a$b (or é$b: any non-ASCII character is a name's)
            }
            int end = at + 1;
            while (end < sql.length() && isNameChar(sql.charAt(end))) {
                end++;
            }
            if (end >= sql.length() || sql.charAt(end) != '$' || (end > at + 1 && Character.isDigit(sql.charAt(at + 1)))) {
                return null;
            }
            return sql.substring(at, end + 1);
        }

        private void skipDollarQuoted(String tag) {
            int close = sql.indexOf(tag, at + tag.length());
            if (close < 0) {
                throw new IllegalArgumentException("has a dollar-quoted constant " + tag + " that is never closed");
            }
            constants.add(sql.substring(at + tag.length(), close));
            at = close + tag.length();
        }
    }
}
