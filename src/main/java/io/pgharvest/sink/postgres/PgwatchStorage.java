package io.pgharvest.sink.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * Recognises a storage database pgwatch created (its {@code admin} schema without pgharvest's
 * schema history) and prepares it to be taken over, so that an operator can point pgharvest at
 * the database pgwatch wrote to and keep its history and dashboards. pgwatch's TimescaleDB layout
 * is refused: pgharvest writes plain partitions only.
 */
final class PgwatchStorage {

    private static final String ADOPTION = "db/sink-postgres-adopt/pgwatch_storage.sql";

    private PgwatchStorage() {
    }

    /**
     * When {@code dataSource} is a pgwatch storage database not yet taken over, adds what pgharvest
     * needs besides pgwatch's objects and returns true: the caller then baselines its migrations
     * at version 1 (pgwatch's schema stands in for it). Returns false for any other database.
     *
     * @throws SQLException when the database is pgwatch's but uses a layout pgharvest cannot write
     */
    static boolean prepareAdoption(DataSource dataSource, String maskedUrl) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            String layout;
            try (ResultSet rs = s.executeQuery("SELECT to_regclass('admin.pgharvest_schema_history') IS NULL"
                    + " AND to_regclass('admin.storage_schema_type') IS NOT NULL"
                    + " AND to_regclass('admin.all_distinct_dbname_metrics') IS NOT NULL"
                    + " AND to_regclass('admin.metrics_template') IS NOT NULL")) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    return false;
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT schema_type FROM admin.storage_schema_type LIMIT 1")) {
                layout = rs.next() ? rs.getString(1) : null;
            }
            if (!"postgres".equals(layout)) {
                throw new SQLException("storage " + maskedUrl + " is a pgwatch storage database with the '" + layout
                        + "' layout; pgharvest writes plain PostgreSQL partitions only (layout 'postgres')", "55000");
            }
            c.setAutoCommit(false);
            s.execute(script());
            c.commit();
            return true;
        }
    }

    private static String script() {
        try (InputStream in = PgwatchStorage.class.getClassLoader().getResourceAsStream(ADOPTION)) {
            if (in == null) {
                throw new IllegalStateException(ADOPTION + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + ADOPTION, e);
        }
    }
}
