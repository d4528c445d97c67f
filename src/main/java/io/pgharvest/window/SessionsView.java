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

    private SessionsView() {
    }

    static List<Session> sessions(List<Measurement.Row> samples, UnaryOperator<String> texts) {
        var sessions = new ArrayList<Session>(samples.size());
        var seen = new HashSet<String>();
        for (Measurement.Row row : samples) {
            // active_sessions sums several samplings: a row its latest sampling did not see is past,
            // and a session shows once however many waits it went through
            if ((row.values().containsKey("running") && !Cells.flag(row, "running"))
                    || !seen.add(Cells.textOrEmpty(row, "pid"))) {
                continue;
            }
            String queryid = Cells.textOrEmpty(row, "queryid");
            sessions.add(new Session(Cells.textOrEmpty(row, "pid"), Cells.textOrEmpty(row, "dbname"),
                    Cells.textOrEmpty(row, "user_name"), Cells.textOrEmpty(row, "application_name"),
                    Cells.textOrEmpty(row, "backend_type"), Cells.textOrEmpty(row, "state"),
                    Cells.textOrEmpty(row, "wait_event_type"), Cells.textOrEmpty(row, "wait_event"), queryid,
                    queryid.isEmpty() ? null : texts.apply(queryid), Cells.number(row, "duration_s"),
                    Cells.number(row, "transaction_duration_s"), pids(Cells.textOrEmpty(row, "blocking_pids"))));
        }
        return sessions;
    }

    private static List<String> pids(String commaSeparated) {
        return commaSeparated.isBlank() ? List.of()
                : Arrays.stream(commaSeparated.split(",")).map(String::strip).filter(p -> !p.isEmpty()).toList();
    }

    /** The lock tree of {@code sessions}, roots first by the number of sessions they hold up. */
    static List<LockNode> lockTree(List<Session> sessions, List<Measurement.Row> blocking) {
        var byPid = new LinkedHashMap<String, Session>();
        sessions.forEach(s -> byPid.put(s.pid(), s));
        var waitersOf = new HashMap<String, List<Session>>();
        for (Session s : sessions) {
            s.blockedBy().forEach(holder -> waitersOf.computeIfAbsent(holder, p -> new ArrayList<>()).add(s));
        }
        var waitTexts = new HashMap<String, Measurement.Row>();
        var holderRows = new HashMap<String, Measurement.Row>();
        for (Measurement.Row row : blocking) {
            waitTexts.putIfAbsent(Cells.textOrEmpty(row, "blocked_pid"), row);
            holderRows.putIfAbsent(Cells.textOrEmpty(row, "root_blocker_pid"), row);
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
            Map<String, Measurement.Row> waitTexts, Map<String, Measurement.Row> holderRows, Set<String> path) {
        path.add(pid);
        var waiters = new ArrayList<LockNode>();
        for (Session waiter : waitersOf.getOrDefault(pid, List.of())) {
            if (!path.contains(waiter.pid())) { // a deadlock's cycle is shown once, not followed forever
                waiters.add(node(waiter.pid(), byPid, waitersOf, waitTexts, holderRows, path));
            }
        }
        path.remove(pid);
        Session s = byPid.get(pid);
        Measurement.Row asWaiter = waitTexts.get(pid);
        Measurement.Row asHolder = holderRows.get(pid);
        String statement = asWaiter != null ? Cells.text(asWaiter, "blocked_query")
                : asHolder != null ? Cells.text(asHolder, "blocker_query") : null;
        if (s == null) { // a holder that was not sampled (idle, holding a session lock): what blocking_locks saw
            return new LockNode(pid, asHolder == null ? "" : Cells.textOrEmpty(asHolder, "blocker_user"), "",
                    asHolder == null ? "" : Cells.textOrEmpty(asHolder, "blocker_state"),
                    asHolder == null ? null : Cells.number(asHolder, "blocker_transaction_duration_s"), null,
                    asHolder == null ? "" : Cells.textOrEmpty(asHolder, "blocker_query_id"), statement, waiters);
        }
        Double waited = s.blockedBy().isEmpty() ? null
                : asWaiter != null && Cells.number(asWaiter, "wait_s") != null ? Cells.number(asWaiter, "wait_s")
                : s.statementSeconds();
        return new LockNode(pid, s.user(), s.application(), s.state(), s.transactionSeconds(), waited, s.queryid(),
                statement != null ? statement : s.text(), waiters);
    }

    private static int size(LockNode node) {
        return node.waiters().stream().mapToInt(w -> 1 + size(w)).sum();
    }
}
