package io.pgharvest.kind.pooler;

import io.pgharvest.kind.AloneRun;
import io.pgharvest.kind.FetchedRows;
import io.pgharvest.kind.MetricQuery;
import io.pgharvest.kind.NotReadingException;
import io.pgharvest.kind.RolePrivileges;
import io.pgharvest.kind.ServerFacts;
import io.pgharvest.kind.SourceSession;
import io.pgharvest.model.sql.MetricSql;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A reaper's session on an admin console (pgbouncer, pgpool; {@link AdminConsoleEndpoint}). A console
 * takes no transactions and no pipelines: a round trip is one command, each bounded by its
 * metric's time limit on the client side, and a tick's commands go one after the other. Its facts
 * are the version it reported and the SQL key of its dialect; it has no recovery state.
 *
 * <p>Not thread-safe: owned by one reaper's thread.
 */
final class AdminConsoleSourceSession implements SourceSession {

    private static final int MAX_VERDICTS = 1024;

    private final AdminConsoleClientSession console;
    /** MetricSql's verdict per SQL text (ticks repeat the same texts). */
    private final Map<String, Optional<String>> verdicts = new HashMap<>();
    private ServerFacts facts;

    AdminConsoleSourceSession(AdminConsoleClientSession console, Instant now) {
        this.console = console;
        this.facts = ServerFacts.notPostgres(now, console.version(), console.dialect().sqlKey());
    }

    @Override
    public ServerFacts facts() {
        return facts;
    }

    /** Nothing to ask: the version was read when the session opened and a console has no role. */
    @Override
    public ServerFacts refreshFacts(Instant now) {
        facts = ServerFacts.notPostgres(now, console.version(), console.dialect().sqlKey());
        return facts;
    }

    /** A console shows statistics; its SHOW commands change nothing. */
    @Override
    public RolePrivileges privileges() {
        return RolePrivileges.READ_ONLY;
    }

    @Override
    public NotReadingException refusal(MetricQuery query) {
        if (verdicts.size() > MAX_VERDICTS) {
            verdicts.clear();
        }
        return verdicts.computeIfAbsent(query.sql(), MetricSql::problemOnConsole)
                .map(problem -> new NotReadingException(query.metric(), problem)).orElse(null);
    }

    /** Refuses before sending anything when any query may not be sent, then one command per query. */
    @Override
    public List<FetchedRows> run(List<MetricQuery> queries) throws SQLException {
        for (MetricQuery query : queries) {
            NotReadingException refused = refusal(query);
            if (refused != null) {
                throw refused;
            }
        }
        var results = new ArrayList<FetchedRows>(queries.size());
        for (MetricQuery query : queries) {
            results.add(new FetchedRows(console.run(query.sql(), query.statementTimeout()), null));
        }
        return results;
    }

    @Override
    public AloneRun runAlone(MetricQuery query) throws SQLException {
        return new AloneRun(run(List.of(query)).getFirst(), false);
    }

    @Override
    public List<Map<String, Object>> read(String sql, Object... parameters) throws SQLException {
        throw new SQLException("the source is not a PostgreSQL server; this metric reads one", "0A000");
    }

    @Override
    public List<Map<String, Object>> read(java.time.Duration timeout, String sql, Object... parameters)
            throws SQLException {
        return read(sql, parameters);
    }

    /**
     * Only a lost session is broken, never slow: a console cannot cancel a command, so a command
     * without answer ends its session.
     */
    @Override
    public Failure classify(SQLException error) {
        return console.isBroken(error) ? Failure.BROKEN : Failure.METRIC;
    }

    /** A console speaks PostgreSQL's protocol and reports a terminated session as a server does. */
    @Override
    public boolean endedByServer(SQLException error) {
        return "57P01".equals(error.getSQLState());
    }

    @Override
    public void close() {
        console.close();
    }
}
