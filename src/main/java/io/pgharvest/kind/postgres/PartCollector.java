package io.pgharvest.kind.postgres;

import io.pgharvest.kind.ResultSetMapper;
import io.pgharvest.kind.FetchedRows;
import io.pgharvest.kind.ResultLimits;
import io.pgharvest.support.wire.ResultBytesBound;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.core.BaseStatement;
import org.postgresql.core.Field;
import org.postgresql.core.Query;
import org.postgresql.core.ResultCursor;
import org.postgresql.core.ResultHandlerBase;
import org.postgresql.core.Tuple;

/**
 * Collects a round trip's answers part by part as pgjdbc reads them: each statement's rows or
 * command status, in the order the server ran them, and the first error. pgjdbc's own statements
 * throw that error and drop every result that came before it; this handler keeps them, so
 * {@link QueryPipeline#runKeeping} can deliver the statements that completed and tell which one
 * failed: the one right after the last answer.
 *
 * <p>Rows are mapped only after the round trip ({@link #answers}): while pgjdbc reads the server's
 * messages, a result set must not be read, since reading a column of a type it has not seen yet
 * makes pgjdbc ask the server about that type on the same session.
 *
 * <p>Notices and warnings are never kept: a server (or a function a database owner wrote) can send
 * any number of them, and pgjdbc's statements would chain every one on the heap (the session's
 * stream drops them past a few per round trip and counts them, {@code support.wire.ResultBytesBound}).
 *
 * <p>One per round trip; used by the thread that owns the session.
 */
final class PartCollector extends ResultHandlerBase {

    private final BaseStatement results;
    private final int maxRows;
    /** Each part's answer as it came: its rows, or null for a command status. */
    private final List<Received> parts = new ArrayList<>();
    private SQLException failure;

    /**
     * @param results a statement of the session, used only to turn rows into result sets
     * @param maxRows rows a statement may return (the server sends one more to tell)
     */
    PartCollector(BaseStatement results, int maxRows) {
        this.results = results;
        this.maxRows = maxRows;
    }

    @Override
    public void handleResultRows(Query fromQuery, Field[] fields, List<Tuple> tuples, ResultCursor cursor) {
        if (failure == null) {
            parts.add(new Received(fromQuery, fields, tuples, cursor));
        }
    }

    @Override
    public void handleCommandStatus(String status, long updateCount, long insertOID) {
        if (failure == null) {
            parts.add(null);
        }
    }

    @Override
    public void handleWarning(SQLWarning warning) {
        // dropped: see the class comment
    }

    @Override
    public void handleError(SQLException error) {
        if (failure == null) {
            failure = error;
        } else if (failure != error) {
            failure.addSuppressed(error);
        }
    }

    @Override
    public void handleCompletion() {
        // The caller reads the failure from answers(): the parts before it are kept.
    }

    @Override
    public SQLException getException() {
        return failure;
    }

    /**
     * What the round trip answered, its rows mapped now ({@link ResultSetMapper}). Rows pgharvest
     * cannot read fail their part: the parts after it are not delivered either.
     *
     * @param cutPart the result the session's byte bound cut ({@link ResultBytesBound#cutResult}), or -1
     */
    Answers answers(int cutPart, ResultLimits limits) {
        var mapped = new ArrayList<FetchedRows>(parts.size());
        SQLException failed = failure;
        int tooManyRows = -1;
        for (Received part : parts) {
            if (part == null) {
                mapped.add(FetchedRows.EMPTY);
                continue;
            }
            try (ResultSet rs = results.createResultSet(part.query(), part.fields(), part.tuples(), part.cursor())) {
                FetchedRows rows = ResultSetMapper.read(rs);
                if (rows.rows().size() > maxRows && tooManyRows < 0) {
                    tooManyRows = mapped.size();
                }
                mapped.add(rows);
            } catch (SQLException e) {
                failed = e;
                break;
            }
        }
        if (cutPart >= 0 && cutPart < mapped.size()) {
            return new Answers(mapped, failed, new ResultTooLargeException(cutPart,
                    "more than " + limits.bytesText() + " of rows (pgharvest.reaper.max-result-bytes)", null), cutPart);
        }
        if (tooManyRows >= 0) {
            return new Answers(mapped, failed, new ResultTooLargeException(tooManyRows,
                    "more than " + maxRows + " rows (pgharvest.reaper.max-result-rows)", null), tooManyRows);
        }
        return new Answers(mapped, failed, null, -1);
    }

    /**
     * What the server answered for a round trip's parts, in order, up to the first failure.
     *
     * @param parts the results of the parts that completed (a part without rows, such as BEGIN, as
     *     {@link FetchedRows#EMPTY})
     * @param failure the first error, or null; the parts after the one it belongs to did not run
     * @param tooLarge the result past a limit (rows or bytes), or null; the server ran every part
     * @param refusedPart the part {@code tooLarge} belongs to, or -1
     */
    record Answers(List<FetchedRows> parts, SQLException failure, ResultTooLargeException tooLarge, int refusedPart) {
        boolean completed(int part) {
            return part < parts.size();
        }
    }

    /** One statement's rows as pgjdbc received them. */
    private record Received(Query query, Field[] fields, List<Tuple> tuples, ResultCursor cursor) {
    }
}
