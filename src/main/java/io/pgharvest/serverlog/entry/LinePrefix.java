package io.pgharvest.serverlog.entry;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server's {@code log_line_prefix}, turned once into a pattern that finds each escape's value
 * at the start of a stderr line, followed by the severity ({@code LOG:  }, {@code DETAIL:  } ...).
 *
 * <p>Escapes with a shape of their own ({@code %p}, {@code %m}, {@code %e}, {@code %Q} ...) match
 * only that shape; free text ({@code %u}, {@code %d}, {@code %a}, {@code %r} ...) matches as little
 * as the literal text after it allows, so a prefix should separate such escapes by literal text
 * (as the default {@code '%m [%p] '} and every usual prefix do). Everything after {@code %q} is
 * optional, since processes without a session write nothing from there. A padding
 * ({@code %-10u}, {@code %5p}) allows the spaces it adds.
 */
public final class LinePrefix {

    private static final String TIME = "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d \\S+";
    private static final String TIME_MS = "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\S+";
    private static final String SEVERITY = "(DEBUG[1-5]|LOG|INFO|NOTICE|WARNING|ERROR|FATAL|PANIC"
            + "|DETAIL|HINT|CONTEXT|STATEMENT|QUERY|LOCATION):  ";

    private final String setting;
    private final Pattern pattern;
    /** The escape letter of each capturing group, group 1 first; the severity's group comes after. */
    private final List<Character> groups;
    private final Set<Character> escapes;

    private LinePrefix(String setting, Pattern pattern, List<Character> groups, Set<Character> escapes) {
        this.setting = setting;
        this.pattern = pattern;
        this.groups = List.copyOf(groups);
        this.escapes = Set.copyOf(escapes);
    }

    /** Reads a {@code log_line_prefix} setting as the server shows it (null or empty: no prefix). */
    public static LinePrefix of(String setting) {
        String prefix = setting == null ? "" : setting;
        var regex = new StringBuilder("^");
        var groups = new ArrayList<Character>();
        var escapes = new TreeSet<Character>();
        int optionalGroups = 0;
        var literal = new StringBuilder();
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (c != '%' || i + 1 >= prefix.length()) {
                literal.append(c);
                continue;
            }
            int j = i + 1;
            boolean padded = false;
            while (j < prefix.length() && (prefix.charAt(j) == '-' || Character.isDigit(prefix.charAt(j)))) {
                padded = true;
                j++;
            }
            if (j >= prefix.length()) {
                break;
            }
            char escape = prefix.charAt(j);
            i = j;
            if (escape == '%') {
                literal.append('%');
                continue;
            }
            flush(literal, regex);
            if (escape == 'q') {
                regex.append("(?:");
                optionalGroups++;
                continue;
            }
            String value = valuePattern(escape);
            if (value == null) {
                continue; // an escape the server ignores writes nothing
            }
            escapes.add(escape);
            groups.add(escape);
            regex.append(padded ? " *(" + value + ") *" : "(" + value + ")");
        }
        flush(literal, regex);
        regex.append(")?".repeat(optionalGroups));
        regex.append(SEVERITY);
        return new LinePrefix(prefix, Pattern.compile(regex.toString()), groups, escapes);
    }

    private static void flush(StringBuilder literal, StringBuilder regex) {
        if (!literal.isEmpty()) {
            regex.append(Pattern.quote(literal.toString()));
            literal.setLength(0);
        }
    }

    private static String valuePattern(char escape) {
        return switch (escape) {
            case 'a', 'u', 'd', 'r', 'h', 'b', 'i', 'L' -> ".*?";
            case 'p', 'l', 'x' -> "\\d+";
            case 'P' -> "\\d*";
            case 't', 's' -> TIME;
            case 'm' -> TIME_MS;
            case 'n' -> "\\d+\\.\\d+";
            case 'e' -> "[0-9A-Z]{5}";
            case 'c' -> "[0-9a-f]+\\.[0-9a-f]+";
            case 'v' -> "\\S*";
            case 'Q' -> "-?\\d+";
            default -> null;
        };
    }

    /** The setting as read from the server. */
    public String setting() {
        return setting;
    }

    /** Whether the prefix writes this escape ({@code 'e'} for the SQLSTATE, {@code 'Q'} for the query ID ...). */
    public boolean has(char escape) {
        return escapes.contains(escape);
    }

    /** The matcher of one line; {@link #severityGroup()} holds the severity when it looks at a prefixed line. */
    Matcher matcher(CharSequence line) {
        return pattern.matcher(line);
    }

    int severityGroup() {
        return groups.size() + 1;
    }

    /** Sets what the escapes of a matched line say on {@code entry}. */
    void fill(Matcher matched, EntryBuilder entry) {
        for (int g = 0; g < groups.size(); g++) {
            String value = matched.group(g + 1);
            if (value == null) {
                continue;
            }
            value = value.strip();
            switch (groups.get(g)) {
                case 'a' -> entry.application = EntryBuilder.emptyToNull(value);
                case 'u' -> entry.user = EntryBuilder.emptyToNull(value);
                case 'd' -> entry.database = EntryBuilder.emptyToNull(value);
                case 'r', 'h' -> entry.clientAddress = EntryBuilder.hostOnly(value);
                case 'b' -> entry.backendType = EntryBuilder.emptyToNull(value);
                case 'p' -> entry.pid = EntryBuilder.integer(value);
                case 't', 'm', 'n' -> entry.time = LogTimes.parse(value);
                case 'e' -> entry.sqlState = value;
                case 'Q' -> entry.queryId = EntryBuilder.longValue(value);
                default -> {
                    // not part of an entry's record
                }
            }
        }
    }
}
