package io.pgharvest.sink.postgres;

import static io.pgharvest.sink.SettingChecks.checkRange;
import static io.pgharvest.sink.SettingChecks.orDefault;

import io.pgharvest.sink.SettingChecks;
import io.pgharvest.sink.SinkSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The options of a {@code postgres} sink entry of {@code pgharvest.sinks}.
 *
 * @param url a {@code postgresql://user:password@host:port/db?...} URI or a {@code jdbc:postgresql:}
 *     URL of the storage database; a secret, never logged
 * @param user user name when the URL carries none
 * @param password password when the URL carries none; a secret, never logged
 * @param retention partitions entirely older than this are dropped; 0 keeps all
 * @param partitionInterval time range of one partition (whole hours, at least one hour)
 * @param partitionsAhead future partitions kept created ahead of time
 * @param maintenanceInterval period of partition pre-creation, retention and the refresh of the
 *     dashboards' database listing
 */
public record PostgresSinkProperties(
        String url,
        String user,
        String password,
        Duration retention,
        Duration partitionInterval,
        Integer partitionsAhead,
        Duration maintenanceInterval) implements SinkSettings {

    /** Absent options take their documented defaults here. */
    public PostgresSinkProperties {
        retention = orDefault(retention, Duration.ofDays(14));
        partitionInterval = orDefault(partitionInterval, Duration.ofDays(1));
        partitionsAhead = orDefault(partitionsAhead, 2);
        maintenanceInterval = orDefault(maintenanceInterval, Duration.ofHours(1));
    }

    /** A sink of {@code url} with every other option at its default. */
    public static PostgresSinkProperties of(String url) {
        return new PostgresSinkProperties(url, null, null, null, null, null, null);
    }

    /** The same settings with another retention. */
    public PostgresSinkProperties withRetention(Duration newRetention) {
        return new PostgresSinkProperties(url, user, password, newRetention, partitionInterval, partitionsAhead,
                maintenanceInterval);
    }

    /** The URL is never quoted: it may hold a password. */
    @Override
    public List<String> problems(String prefix) {
        var problems = new ArrayList<String>();
        String lower = url == null ? "" : url.strip().toLowerCase(Locale.ROOT);
        if (lower.isEmpty()) {
            problems.add(prefix + ".url is required for a postgres sink");
        } else if (!(lower.startsWith("postgresql://") || lower.startsWith("postgres://")
                || lower.startsWith("jdbc:postgresql:"))) {
            problems.add(prefix + ".url must be a postgresql:// URI or a jdbc:postgresql: URL");
        }
        if (retention.isNegative() || (!retention.isZero() && retention.compareTo(Duration.ofHours(1)) < 0)) {
            problems.add(prefix + ".retention must be 0 (keep everything) or at least 1h (was " + retention + ")");
        }
        if (partitionInterval.compareTo(Duration.ofHours(1)) < 0
                || partitionInterval.toMillis() % Duration.ofHours(1).toMillis() != 0) {
            problems.add(prefix + ".partition-interval must be a whole number of hours, at least 1h (was "
                    + partitionInterval + ")");
        }
        checkRange(problems, prefix + ".partitions-ahead", partitionsAhead, 0, 1000);
        if (maintenanceInterval.compareTo(Duration.ofSeconds(1)) < 0) {
            problems.add(prefix + ".maintenance-interval must be at least 1s (was " + maintenanceInterval + ")");
        }
        return problems;
    }

    /** Scheme, host, port and path of the database. */
    @Override
    public String destination(Path dataDir) {
        return SettingChecks.withoutCredentials(url);
    }

    /** Never shows the URL (it may hold a password) or the password. */
    @Override
    public String toString() {
        return "PostgresSinkProperties[url=" + (url == null ? "none" : "***") + ", user=" + user
                + (password == null ? "" : ", password=***") + ", retention=" + retention + ", partitionInterval="
                + partitionInterval + ", partitionsAhead=" + partitionsAhead + ", maintenanceInterval="
                + maintenanceInterval + "]";
    }
}
