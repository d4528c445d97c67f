package io.pgharvest.insights;

import io.pgharvest.support.AtomicFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The latest plan shape ({@code plan_hash}) query_plans saw of each statement of each source and
 * database, kept in a file of the data directory ({@code plan-shapes.json}, next to the file
 * configuration store), so that a plan that changed while pgharvest was down, or across its restart,
 * is still marked as a change ({@code previous_plan_hash}).
 *
 * <p>Why a file of its own and neither the configuration store nor the sinks: a shape is an
 * observation, not configuration; in the configuration store every plan would be a configuration
 * change (a store index, a notification to every instance, a reload); and reading the last plan back
 * from a sink works only for the PostgreSQL sink, while plans are marked whatever the sinks are. The
 * file is written when a shape is new or changed (a few times a day per statement at most: plans
 * stand for {@code plan-every}) and once at shutdown for the times of plans read again; a crash loses
 * only those times. Bounded: at most {@link #PER_SOURCE} statements per source (the least recently
 * planned go first) and none planned longer ago than {@link #FORGET_AFTER}. A source that moves to
 * another pgharvest instance of a fleet starts without its shapes there.
 *
 * <p>Thread-safe: the reapers of all sources use it; the lock is held while the file is written.
 */
final class PlanShapes {

    static final String FILE_NAME = "plan-shapes.json";
    static final int PER_SOURCE = 1000;
    static final Duration FORGET_AFTER = Duration.ofDays(30);
    private static final Logger log = LoggerFactory.getLogger(PlanShapes.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * A statement's latest shape.
     *
     * @param hash the plan's {@code plan_hash}
     * @param plannedAt when it was last planned with this shape
     */
    record Shape(String hash, Instant plannedAt) {
    }

    /** One line of the file. */
    record Entry(String source, String dbname, long queryid, String hash, Instant plannedAt) {
    }

    private record Key(String source, String dbname, long queryid) {
    }

    private final Path file;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<Key, Shape> shapes = new HashMap<>();
    private boolean unwritten;

    /**
     * Reads {@code file} when it exists; a file that cannot be read is logged and started over.
     *
     * @param file null to keep the shapes in memory only (a collector without the data directory)
     */
    PlanShapes(Path file, Instant now) {
        this.file = file;
        for (Entry entry : file == null ? List.<Entry>of() : read(file)) {
            if (entry.source() != null && entry.dbname() != null && entry.hash() != null && entry.plannedAt() != null
                    && entry.plannedAt().plus(FORGET_AFTER).isAfter(now)) {
                shapes.put(new Key(entry.source(), entry.dbname(), entry.queryid()),
                        new Shape(entry.hash(), entry.plannedAt()));
            }
        }
    }

    /**
     * Records the shape a plan of {@code queryid} had at {@code now}.
     *
     * @return the shape it had before when that was another one, else null (the first plan, or the same shape)
     */
    Shape record(String source, String dbname, long queryid, String hash, Instant now) {
        lock.lock();
        try {
            Shape before = shapes.put(new Key(source, dbname, queryid), new Shape(hash, now));
            if (before != null && before.hash().equals(hash)) {
                unwritten = true; // only the time moved: written at shutdown or with the next change
                return null;
            }
            if (before == null) {
                evictBeyondBound(source);
            }
            write();
            return before;
        } finally {
            lock.unlock();
        }
    }

    /** Writes what only moved in time (at shutdown). */
    void flush() {
        lock.lock();
        try {
            if (unwritten) {
                write();
            }
        } finally {
            lock.unlock();
        }
    }

    /** How many shapes are kept. */
    int size() {
        lock.lock();
        try {
            return shapes.size();
        } finally {
            lock.unlock();
        }
    }

    private void evictBeyondBound(String source) {
        var mine = new ArrayList<Map.Entry<Key, Shape>>();
        shapes.entrySet().stream().filter(e -> e.getKey().source().equals(source)).forEach(mine::add);
        if (mine.size() <= PER_SOURCE) {
            return;
        }
        mine.sort(Comparator.comparing(e -> e.getValue().plannedAt()));
        mine.subList(0, mine.size() - PER_SOURCE).forEach(e -> shapes.remove(e.getKey()));
    }

    /** The whole file, atomically; a failure is logged and the shapes stay in memory. */
    private void write() {
        if (file == null) {
            return;
        }
        var entries = new ArrayList<Entry>(shapes.size());
        shapes.forEach((key, shape) -> entries.add(new Entry(key.source(), key.dbname(), key.queryid(), shape.hash(),
                shape.plannedAt())));
        try {
            AtomicFiles.write(file, JSON.writeValueAsBytes(entries));
            unwritten = false;
        } catch (IOException | JacksonException e) {
            unwritten = true;
            log.warn("Plan shapes could not be written to {} ({}): a plan change across a restart may go unmarked",
                    file, e.toString());
        }
    }

    private static List<Entry> read(Path file) {
        try {
            List<Entry> entries = JSON.readValue(Files.readAllBytes(file), new TypeReference<List<Entry>>() { });
            return entries == null ? List.of() : entries;
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException | JacksonException e) {
            log.warn("Plan shapes in {} could not be read ({}): starting without them", file, e.toString());
            return List.of();
        }
    }
}
