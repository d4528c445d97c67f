package io.pgharvest.insights;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.InstanceShelf;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * active_sessions for one source: samples the database's sessions that are not idle each time it
 * runs (every second or two in the presets, so a statement of a few seconds is seen however its
 * runs fall between samplings) and delivers what it saw every {@code rowsEvery}, summed per session,
 * statement and wait ({@link SessionTally}), as rows of the {@code query_samples} shape with the
 * number of samples. Between those, a run delivers nothing.
 *
 * <p>pg_stat_activity is instance-wide, so while active_sessions is collected on several databases
 * of one instance, one sampling per instance and interval serves them all (the rules of
 * {@link SharedRead}): the sampler's cost on the server does not grow with the number of databases.
 * Used by the source's reaper thread only.
 */
final class ActiveSessionsCollector implements NativeMetric.Collector {

    private final Duration rowsEvery;
    private final SessionTally tally = new SessionTally();
    private Instant tallyStart;
    /** The instance's sampling this collector took last; null when it sampled itself. */
    private SessionSampling taken;

    /** @param rowsEvery how often the samplings are summed into rows */
    ActiveSessionsCollector(Duration rowsEvery) {
        this.rowsEvery = rowsEvery;
    }

    /** Nothing (not even an empty measurement) between the row intervals. */
    @Override
    public Map<String, List<Measurement.Row>> collectByName(NativeTarget target, String storageName)
            throws Exception {
        List<Measurement.Row> rows = collect(target);
        return rows == null ? Map.of() : Map.of(storageName, rows);
    }

    /** @return the rows when they are due, else null */
    @Override
    public List<Measurement.Row> collect(NativeTarget target) throws Exception {
        Instant now = target.now();
        SessionSampling sampling = sample(target);
        if (sampling != null) {
            tally.add(sampling.of(target.database()));
        }
        if (tallyStart == null) {
            tallyStart = now;
        }
        if (now.isBefore(tallyStart.plus(rowsEvery)) || tally.samplings() == 0) {
            return null;
        }
        tallyStart = now;
        return tally.drain(target.database());
    }

    /** This tick's sampling: the instance's latest (another member's or this one's), or this database's own. */
    private SessionSampling sample(NativeTarget target) throws Exception {
        InstanceShelf shelf = target.instanceShelf();
        Instant now = target.now();
        if (!shelf.isShared()) {
            taken = null;
            return SessionSampling.of(now, target.sql().query(SessionSampling.DATABASE_SQL));
        }
        Samplings samplings = shelf.item(Samplings.class, Samplings::new);
        SessionSampling read = samplings.reusable(target.interval(), now, taken, null).orElse(null);
        if (read == null) {
            if (!samplings.tryClaim(now, now.plus(target.interval()))) {
                return null; // another member is sampling this instant, this database included
            }
            try {
                read = SessionSampling.of(now, target.sql().query(SessionSampling.INSTANCE_SQL));
                samplings.publish(read);
            } finally {
                samplings.release();
            }
        }
        taken = read;
        return read;
    }

    /** The instance's latest sampling, shared by the collectors of its databases. Thread-safe. */
    static final class Samplings extends SharedRead<SessionSampling> {
    }
}
