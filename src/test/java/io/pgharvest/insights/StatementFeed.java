package io.pgharvest.insights;

import io.pgharvest.kind.SourceSession;
import io.pgharvest.nativemetric.NativeTarget;
import io.pgharvest.nativemetric.SourceShelf;
import java.time.Duration;
import java.time.Instant;

/**
 * query_stats and query_texts of one source on a real session, sharing the source's shelf with
 * the query_plans collector under test, as the engine runs them for one source.
 */
final class StatementFeed {

    private final SourceSession session;
    private final String source;
    private final String database;
    private final SourceShelf shelf = new SourceShelf();
    private final QueryStatsCollector stats = new QueryStatsCollector(50);
    private final QueryTextsCollector texts = new QueryTextsCollector(Duration.ofSeconds(30));

    StatementFeed(SourceSession session, String source, String database) {
        this.session = session;
        this.source = source;
        this.database = database;
    }

    void stats(Instant now) throws Exception {
        stats.collect(target(now));
    }

    void texts(Instant now) throws Exception {
        texts.collect(target(now));
    }

    NativeTarget target(Instant now) {
        return new NativeTarget(source, database, session.facts().versionNum() / 10000, ":0", true,
                new QueryPlansCollectorTest.SessionReader(session), Duration.ofSeconds(60), now, null,
                session::openPlanning, shelf);
    }
}
