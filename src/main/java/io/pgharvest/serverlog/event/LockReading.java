package io.pgharvest.serverlog.event;

import io.pgharvest.serverlog.entry.LogEntry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lock waits ({@code log_lock_waits}: a wait past {@code deadlock_timeout}, its end, a deadlock
 * avoided) and deadlocks (the ERROR 40P01 with the processes in its DETAIL).
 *
 * <p>The victim's line carries its own query ID; the other processes' come from the last line each
 * of them logged with one (their own lock-wait line, written when they waited past
 * {@code deadlock_timeout}), remembered per pid for the {@value #REMEMBERED_PIDS} pids seen last.
 * Their statements come from the DETAIL's {@code Process N: ...} lines, redacted like every
 * statement; the rest of the DETAIL is not kept.
 */
final class LockReading {

    static final int REMEMBERED_PIDS = 2048;
    private static final Pattern WAIT = Pattern.compile("^process (\\d+) (still waiting for|acquired"
            + "|avoided deadlock for|detected deadlock while waiting for) (\\S+) on (.+?)"
            + "(?: by rearranging queue order)? after ([0-9.]+) ms");
    private static final Pattern HOLDERS = Pattern.compile("Process(?:es)? holding the lock: ([0-9, ]+)\\."
            + "(?: Wait queue: ([0-9, ]*)\\.)?");
    private static final Pattern DEADLOCK_EDGE = Pattern.compile(
            "^Process (\\d+) waits for (\\S+) on (.+?); blocked by process (\\d+)\\.$", Pattern.MULTILINE);
    private static final Pattern DEADLOCK_STATEMENT = Pattern.compile("^Process (\\d+): (.*)$", Pattern.MULTILINE);
    private static final String DEADLOCK_DETECTED = "40P01";

    private final Map<Integer, Long> queryIds = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, Long> eldest) {
            return size() > REMEMBERED_PIDS;
        }
    };

    /** Remembers the query ID of a line that has one, for the pid that wrote it. */
    void remember(LogEntry entry) {
        if (entry.pid() != null && entry.knownQueryId() != null) {
            queryIds.put(entry.pid(), entry.knownQueryId());
        }
    }

    Optional<LogEvent> readWait(LogEntry entry, LogTexts texts) {
        String message = entry.message();
        if (message == null || !message.startsWith("process ")) {
            return Optional.empty();
        }
        Matcher wait = WAIT.matcher(message);
        if (!wait.find()) {
            return Optional.empty();
        }
        Matcher holders = HOLDERS.matcher(entry.detail() == null ? "" : entry.detail());
        boolean held = holders.find();
        var row = new EventRow(entry).queryId(entry)
                .put("pid", wait.group(1))
                .put("state", state(wait.group(2)))
                .put("lock_mode", wait.group(3))
                .put("lock_object", wait.group(4))
                .put("holder_pids", held ? pids(holders.group(1)) : null)
                .put("waiting_pids", held && holders.group(2) != null ? pids(holders.group(2)) : null)
                .put("wait_ms", Double.valueOf(wait.group(5)))
                .put("query", texts.statement(entry.statement()));
        return Optional.of(row.as(LogCategory.LOCK_WAITS));
    }

    Optional<LogEvent> readDeadlock(LogEntry entry, LogTexts texts) {
        boolean deadlock = DEADLOCK_DETECTED.equals(entry.sqlState())
                || entry.sqlState() == null && "deadlock detected".equals(entry.message());
        if (!deadlock) {
            return Optional.empty();
        }
        String detail = entry.detail() == null ? "" : entry.detail();
        var others = new ArrayList<Integer>();
        Matcher edges = DEADLOCK_EDGE.matcher(detail);
        var locks = new ArrayList<String>();
        while (edges.find()) {
            int pid = Integer.parseInt(edges.group(1));
            if (!others.contains(pid) && !Integer.valueOf(pid).equals(entry.pid())) {
                others.add(pid);
            }
            locks.add(edges.group(2) + " on " + edges.group(3));
        }
        String otherQuery = null;
        Matcher statements = DEADLOCK_STATEMENT.matcher(detail);
        while (statements.find()) {
            if (!others.isEmpty() && others.getFirst() == Integer.parseInt(statements.group(1))) {
                otherQuery = texts.statement(statements.group(2));
            }
        }
        List<String> otherQueryIds = others.stream().map(pid -> {
            Long id = queryIds.get(pid);
            return id == null ? "" : id.toString();
        }).toList();
        var row = new EventRow(entry).queryId(entry)
                .put("other_pids", String.join(",", others.stream().map(String::valueOf).toList()))
                .put("other_queryids", String.join(",", otherQueryIds))
                .put("locks", String.join("; ", locks))
                .put("processes", (long) others.size() + 1)
                .put("query", texts.statement(entry.statement()))
                .put("other_query", otherQuery);
        return Optional.of(row.as(LogCategory.DEADLOCKS));
    }

    private static String state(String verb) {
        return switch (verb) {
            case "still waiting for" -> "waiting";
            case "acquired" -> "acquired";
            case "avoided deadlock for" -> "deadlock_avoided";
            default -> "deadlock_detected";
        };
    }

    private static String pids(String list) {
        return list.replace(" ", "");
    }
}
