package io.pgharvest.kind.continuous;

import io.pgharvest.discovery.DiscoveredSource;
import io.pgharvest.discovery.DiscoveryException;
import io.pgharvest.discovery.SourceDiscoverer;
import io.pgharvest.kind.postgres.PostgresKindRules;
import io.pgharvest.kind.postgres.SessionOpener;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceConnection;
import io.pgharvest.model.SourceKind;
import io.pgharvest.model.connection.ConnectionString;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.springframework.stereotype.Component;

/**
 * Continuous discovery ({@code postgres-continuous-discovery}): one {@code postgres} source per
 * database of the instance the configured connection string names, as pgwatch derives them:
 * <ul>
 *   <li>databases that are templates, do not allow connections, or that the role may not
 *       connect to are left out;</li>
 *   <li>{@code includePattern} / {@code excludePattern} are PostgreSQL regular expressions
 *       ({@code ~}: case-sensitive, matching anywhere in the name unless anchored); a blank
 *       pattern selects everything. They are applied by the server, so they mean exactly what
 *       they mean in pgwatch;</li>
 *   <li>the derived source is named {@code <source>_<database>} (pgwatch's naming, so its
 *       dashboards find the {@code dbname}), connects with the configured string naming that
 *       database, and carries the configured selection, tags and group.</li>
 * </ul>
 * Each discovery opens one short session with the engine's rules (read-only, bounded connect)
 * and closes it.
 */
@Component
final class ContinuousDiscoverer implements SourceDiscoverer {

    private static final String DATABASES_SQL = """
            select datname from pg_database
            where not datistemplate and datallowconn and has_database_privilege(datname, 'CONNECT')
              and (length(trim(?)) = 0 or datname ~ ?)
              and (length(trim(?)) = 0 or datname !~ ?)
            order by datname""";

    private final SessionOpener sessions;

    ContinuousDiscoverer(SessionOpener sessions) {
        this.sessions = sessions;
    }

    @Override
    public Set<SourceKind> kinds() {
        return Set.of(ContinuousKindRules.kind());
    }

    @Override
    public List<DiscoveredSource> discover(Source configured) throws DiscoveryException {
        ConnectionString conn = configured.connection().connectionString();
        var found = new ArrayList<DiscoveredSource>();
        for (String database : databases(configured, conn)) {
            Source derived = new Source(configured.name() + "_" + database,
                    SourceConnection.of(conn.withDatabase(database)),
                    PostgresKindRules.kind(), configured.group(), true, configured.preset(), configured.metrics(),
                    configured.standbyPreset(), configured.standbyMetrics(), configured.tags(),
                    configured.onlyIfPrimary(), null, null, configured.keepQueryLiterals(),
                    configured.keepCommandSettings());
            found.add(new DiscoveredSource(derived, database));
        }
        return found;
    }

    private List<String> databases(Source configured, ConnectionString conn) throws DiscoveryException {
        String include = configured.includePattern() == null ? "" : configured.includePattern();
        String exclude = configured.excludePattern() == null ? "" : configured.excludePattern();
        try (Connection connection = sessions.open(conn);
                PreparedStatement st = connection.prepareStatement(DATABASES_SQL)) {
            connection.setNetworkTimeout(Runnable::run,
                    (int) sessions.settings().defaultStatementTimeout().plusSeconds(30).toMillis());
            st.setString(1, include);
            st.setString(2, include);
            st.setString(3, exclude);
            st.setString(4, exclude);
            var names = new ArrayList<String>();
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
            return names;
        } catch (SQLException e) {
            throw new DiscoveryException("cannot list the databases of " + conn.hosts() + " [SQLState "
                    + e.getSQLState() + "]: " + e.getMessage(), e);
        }
    }
}
