package io.pgharvest.window;

import io.pgharvest.model.Measurement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * A source's sessions and lock tree from the latest reads of {@code query_samples} (every session
 * that is not idle: pid, role, application, state, wait event, statement and transaction age, who
 * blocks it) and {@code blocking_locks} (the statements' texts at the wait, normalized by the
 * server, and the root holder's state when the holder itself was not sampled).
 */
final class SessionsView {

    static final String SAMPLES = "query_samples";
    static final String BLOCKING = "blocking_locks";

    /**
     * One session of the latest sample.
     *
     * @param statementSeconds how long its statement has run (for an idle-in-transaction session: since its last one started)
     * @param transactionSeconds how long its transaction has been open, null outside one
     * @param blockedBy the sessions holding the lock it waits for
     * @param text its statement's normalized text when known
     */
    record Session(String pid, String dbname, String user, String application, String backendType, String state,
            String waitEventType, String waitEvent, String queryid, String text, Double statementSeconds,
            Double transactionSeconds, List<String> blockedBy) {
    }

    /**
     * A session in the lock tree: a root holds a lock others wait for and waits for none itself;
     * its waiters are those it blocks directly.
     *
     * @param waitSeconds how long it has waited for its lock (null for a root)
     */
    record LockNode(String pid, String user, String application, String state, Double transactionSeconds,
            Double waitSeconds, String queryid, String statement, List<LockNode> waiters) {
    }

    /** The columns this view reads of each metric: what the window keeps of their reads. */
    static final Map<String, ViewRows.Columns> COLUMNS = Map.of(
            SAMPLES, new ViewRows.Columns(List.of("pid", "dbname", "user_name", "application_name", "backend_type",
                    "state", "wait_event_type", "wait_event", "queryid", "blocking_pids"),
                    List.of("duration_s", "transaction_duration_s"), SessionsView::latestSampling),
            BLOCKING, ViewRows.Columns.of(List.of("blocked_pid", "root_blocker_pid", "blocked_query", "blocker_query",
                    "blocker_user", "blocker_state", "blocker_query_id"),
                    List.of("blocker_transaction_duration_s", "wait_s")));

    private SessionsView() {
    }

    /**
     * The rows of a read that are sessions now, each once: active_sessions sums several samplings, so
     * a row its latest sampling did not see is past, and a session shows once however many waits it
     * went through. Applied when the window keeps the read.
     */
    static List<Measurement.Row> latestSampling(List<Measurement.Row> samples) {
        var now = new ArrayList<Measurement.Row>(samples.size());
        var seen = new HashSet<String>();
        for (Measurement.Row row : samples) {
            boolean past = row.values().containsKey("running") && !Cells.flag(row, "running");
            if (!past && seen.add(Cells.textOrEmpty(row, "pid"))) {
                now.add(row);
            }
        }
        return now;
    }

    static List<Session> sessions(ViewRows samples, UnaryOperator<String> texts) {
        var sessions = new ArrayList<Session>(samples.size());
        for (ViewRows.Row row : samples.rows()) {
            String queryid = row.textOrEmpty("queryid");
            sessions.add(new Session(row.textOrEmpty("pid"), row.textOrEmpty("dbname"), row.textOrEmpty("user_name"),
                    row.textOrEmpty("application_name"), row.textOrEmpty("backend_type"), row.textOrEmpty("state"),
                    row.textOrEmpty("wait_event_type"), row.textOrEmpty("wait_event"), queryid,
                    queryid.isEmpty() ? null : texts.apply(queryid), row.number("duration_s"),
                    row.number("transaction_duration_s"), pids(row.textOrEmpty("blocking_pids"))));
        }
        return sessions;
    }

    private static List<String> pids(String commaSeparated) {
        return commaSeparated.isBlank() ? List.of()
                : Arrays.stream(commaSeparated.split(",")).map(String::strip).filter(p -> !p.isEmpty()).toList();
    }

    /** The lock tree of {@code sessions}, roots first by the number of sessions they hold up. */
    static List<LockNode> lockTree(List<Session> sessions, ViewRows blocking) {
        var byPid = new LinkedHashMap<String, Session>();
        sessions.forEach(s -> byPid.put(s.pid(), s));
        var waitersOf = new HashMap<String, List<Session>>();
        for (Session s : sessions) {
            s.blockedBy().forEach(holder -> waitersOf.computeIfAbsent(holder, p -> new ArrayList<>()).add(s));
        }
        var waitTexts = new HashMap<String, ViewRows.Row>();
        var holderRows = new HashMap<String, ViewRows.Row>();
        for (ViewRows.Row row : blocking.rows()) {
            waitTexts.putIfAbsent(row.textOrEmpty("blocked_pid"), row);
            holderRows.putIfAbsent(row.textOrEmpty("root_blocker_pid"), row);
        }
        var roots = new ArrayList<LockNode>();
        for (String holder : waitersOf.keySet()) {
            Session held = byPid.get(holder);
            boolean waitsItself = held != null && held.blockedBy().stream().anyMatch(byPid::containsKey);
            if (!waitsItself) {
                roots.add(node(holder, byPid, waitersOf, waitTexts, holderRows, new HashSet<>()));
            }
        }
        roots.sort((a, b) -> Integer.compare(size(b), size(a)));
        return roots;
    }

    private static LockNode node(String pid, Map<String, Session> byPid, Map<String, List<Session>> waitersOf,
            Map<String, ViewRows.Row> waitTexts, Map<String, ViewRows.Row> holderRows, Set<String> path) {
        path.add(pid);
        var waiters = new ArrayList<LockNode>();
        for (Session waiter : waitersOf.getOrDefault(pid, List.of())) {
            if (!path.contains(waiter.pid())) { // a deadlock's cycle is shown once, not followed forever
                waiters.add(node(waiter.pid(), byPid, waitersOf, waitTexts, holderRows, path));
            }
        }
        path.remove(pid);
        Session s = byPid.get(pid);
        ViewRows.Row asWaiter = waitTexts.get(pid);
        ViewRows.Row asHolder = holderRows.get(pid);
        String statement = asWaiter != null ? asWaiter.text("blocked_query")
                : asHolder != null ? asHolder.text("blocker_query") : null;
        if (s == null) { // a holder that was not sampled (idle, holding a session lock): what blocking_locks saw
            return new LockNode(pid, asHolder == null ? "" : asHolder.textOrEmpty("blocker_user"), "",
                    asHolder == null ? "" : asHolder.textOrEmpty("blocker_state"),
                    asHolder == null ? null : asHolder.number("blocker_transaction_duration_s"), null,
                    asHolder == null ? "" : asHolder.textOrEmpty("blocker_query_id"), statement, waiters);
        }
        Double waited = s.blockedBy().isEmpty() ? null
                : asWaiter != null && asWaiter.number("wait_s") != null ? asWaiter.number("wait_s")
                : s.statementSeconds();
        return new LockNode(pid, s.user(), s.application(), s.state(), s.transactionSeconds(), waited, s.queryid(),
                statement != null ? statement : s.text(), waiters);
    }

    private static int size(LockNode node) {
        return node.waiters().stream().mapToInt(w -> 1 + size(w)).sum();
    }
}
