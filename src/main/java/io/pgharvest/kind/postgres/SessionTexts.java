package io.pgharvest.kind.postgres;

import io.pgharvest.kind.MetricQuery;
import io.pgharvest.kind.NotReadingException;
import io.pgharvest.model.sql.ExtensionNames;
import java.sql.SQLException;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.List;

/**
 * What one session sends for each metric text: the verdicts ({@link MetricVerdicts}) for the
 * session's extensions' objects, which it owns with the objects themselves and where to read them
 * again. Kept apart from the pipeline because the two change together and only together: new
 * objects make the verdicts qualified with the old names wrong ({@link #useExtensions}).
 *
 * <p>Not thread-safe: owned by one session's {@link QueryPipeline}.
 */
final class SessionTexts {

    /**
     * Where the session's extensions are read again when the guard finds they changed.
     */
    @FunctionalInterface
    interface ExtensionReader {
        ExtensionObjects read() throws SQLException;
    }

    /** What each metric text may be sent as on this session. */
    private final MetricVerdicts verdicts;
    private final SessionStatements statements;
    /** The session's extensions' objects; the own verdicts hold for these. */
    private ExtensionObjects extensions = ExtensionObjects.NONE;
    private ExtensionReader extensionReader = () -> ExtensionObjects.NONE;

    /**
     * @param friendlyCheck pgharvest's own reading of a metric (why it is refused, or empty)
     * @param statements the session's, which say how its driver reads backslashes
     */
    SessionTexts(Function<String, Optional<String>> friendlyCheck, SessionStatements statements) {
        this.verdicts = new MetricVerdicts(friendlyCheck, List.of(ReadOnlyFrame.BEGIN, ReadOnlyFrame.ROLLBACK),
                ReadOnlyFrame.SEPARATOR);
        this.statements = statements;
    }

    /** Why {@code query} would be refused without being sent, or null when it may be sent. */
    NotReadingException refusal(MetricQuery query) {
        MetricVerdicts.Verdict verdict = verdictOf(query.sql());
        return verdict.problem() == null ? null : new NotReadingException(query.metric(), verdict.problem());
    }

    /** The text sent for {@code query} (kept per SQL text: the same strings every tick). */
    String sent(MetricQuery query) {
        return verdictOf(query.sql()).sent();
    }

    /** The extension objects {@code query}'s text names, which the round trip's guard must find unchanged. */
    Set<ExtensionNames.Member> named(MetricQuery query) {
        return verdictOf(query.sql()).named();
    }

    /** The statement that fails when the session's objects {@code named} are no longer where they were. */
    String guard(Set<ExtensionNames.Member> named) {
        return extensions.guard(named);
    }

    /**
     * The metric's own text as sent, without {@link OneSelect}'s wrapping: its SQL with the names of
     * extension objects qualified (error positions count in it). Its SQL when it is refused.
     */
    String sentText(MetricQuery query) {
        MetricVerdicts.Verdict verdict = verdictOf(query.sql());
        return verdict.qualified() == null ? query.sql() : verdict.qualified();
    }

    /** The session's extensions' objects, as read when it opened or when they changed. */
    void useExtensions(ExtensionObjects objects, ExtensionReader reader) {
        this.extensionReader = reader;
        if (objects != extensions) {
            extensions = objects;
            verdicts.forget(); // texts qualified with the names that were
        }
    }

    /** The guard found the session's extensions changed: reads them again, or throws with {@code guardFailure}. */
    void rereadExtensions(SQLException guardFailure) throws SQLException {
        try {
            useExtensions(extensionReader.read(), extensionReader);
        } catch (SQLException e) {
            e.addSuppressed(guardFailure);
            throw e;
        }
    }

    private MetricVerdicts.Verdict verdictOf(String sql) {
        return verdicts.of(sql, readsBackslashesAsStandard(), extensions.names());
    }

    /**
     * How this session's driver reads backslashes in literals. Only a closed session cannot say,
     * and it sends nothing either way: its verdicts are those of PostgreSQL's default.
     */
    private boolean readsBackslashesAsStandard() {
        try {
            return statements.standardConformingStrings();
        } catch (SQLException e) {
            return true;
        }
    }
}
