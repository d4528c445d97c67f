package io.pgharvest.store.postgres;

import io.pgharvest.store.LogPositions;
import io.pgharvest.store.StoreUnavailableException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The log read positions in the configuration database (table {@code log_position}), so that the
 * instance that takes a source over continues its log where the previous owner stopped.
 */
final class PostgresLogPositions implements LogPositions {

    private static final String FIND = "select format, file, file_offset from log_position where source = ?";
    private static final String SAVE = """
            insert into log_position (source, format, file, file_offset, saved_at) values (?, ?, ?, ?, now())
            on conflict (source) do update set format = excluded.format, file = excluded.file,
                file_offset = excluded.file_offset, saved_at = excluded.saved_at""";

    private final DataSource dataSource;
    private final String maskedUrl;

    PostgresLogPositions(DataSource dataSource, String maskedUrl) {
        this.dataSource = dataSource;
        this.maskedUrl = maskedUrl;
    }

    @Override
    public Optional<LogPosition> find(String source) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(FIND)) {
            statement.setString(1, source);
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() ? Optional.of(new LogPosition(rows.getString(1), rows.getString(2), rows.getLong(3)))
                        : Optional.empty();
            }
        } catch (SQLException e) {
            throw unavailable("read", e);
        }
    }

    @Override
    public void save(String source, LogPosition position) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(SAVE)) {
            statement.setString(1, source);
            statement.setString(2, position.format());
            statement.setString(3, position.file());
            statement.setLong(4, position.offset());
            statement.executeUpdate();
        } catch (SQLException e) {
            throw unavailable("save", e);
        }
    }

    private StoreUnavailableException unavailable(String what, SQLException e) {
        return new StoreUnavailableException("cannot " + what + " a log read position in the configuration database "
                + maskedUrl + " [SQLState " + e.getSQLState() + "]: " + e.getMessage(), e);
    }
}
