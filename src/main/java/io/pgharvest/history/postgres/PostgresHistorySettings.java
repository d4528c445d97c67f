package io.pgharvest.history.postgres;

import io.pgharvest.support.plugin.PluginSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The options of a {@code postgres} entry of {@code pgharvest.history}: a storage database in
 * pgwatch's layout (pgharvest's postgres sink, or pgwatch's own PostgreSQL storage).
 *
 * @param url a {@code postgresql://} URI or {@code jdbc:postgresql:} URL of the storage database; a
 *     secret, never logged
 * @param user user name when the URL carries none (a read-only role is enough)
 * @param password password when the URL carries none; a secret, never logged
 * @param poolSize the reader's own connections (never the sink's)
 * @param statementTimeout the longest one read may run on the server
 * @param retention how far back the database keeps rows (a range starting earlier is refused); 0:
 *     unknown, any range is read
 */
public record PostgresHistorySettings(String url, String user, String password, Integer poolSize,
        Duration statementTimeout, Duration retention) implements PluginSettings {

    public PostgresHistorySettings {
        poolSize = poolSize == null ? 2 : poolSize;
        statementTimeout = statementTimeout == null ? Duration.ofSeconds(10) : statementTimeout;
        retention = retention == null ? Duration.ZERO : retention;
    }

    /** The URL is never quoted: it may hold a password. */
    @Override
    public List<String> problems(String prefix) {
        var problems = new ArrayList<String>();
        String lower = url == null ? "" : url.strip().toLowerCase(Locale.ROOT);
        if (lower.isEmpty()) {
            problems.add(prefix + ".url is required for a postgres history reader");
        } else if (!(lower.startsWith("postgresql://") || lower.startsWith("postgres://")
                || lower.startsWith("jdbc:postgresql:"))) {
            problems.add(prefix + ".url must be a postgresql:// URI or a jdbc:postgresql: URL");
        }
        if (poolSize < 1 || poolSize > 16) {
            problems.add(prefix + ".pool-size must be 1 to 16 (was " + poolSize + ")");
        }
        if (statementTimeout.compareTo(Duration.ofMillis(100)) < 0 || statementTimeout.compareTo(Duration.ofMinutes(5)) > 0) {
            problems.add(prefix + ".statement-timeout must be 100ms to 5m (was " + statementTimeout + ")");
        }
        if (retention.isNegative()) {
            problems.add(prefix + ".retention must be 0 (unknown) or positive (was " + retention + ")");
        }
        return problems;
    }

    /** Never shows the URL (it may hold a password) or the password. */
    @Override
    public String toString() {
        return "PostgresHistorySettings[url=" + (url == null ? "none" : "***") + ", user=" + user
                + (password == null ? "" : ", password=***") + ", poolSize=" + poolSize + ", statementTimeout="
                + statementTimeout + ", retention=" + retention + "]";
    }
}
