package io.pgharvest.sink;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.util.unit.DataSize;

/**
 * One entry of {@code pgharvest.sinks}. {@code address} and the remote-write options (bearer token,
 * headers, TLS, timeouts) are refused on entries of another type, and a remote-write entry refuses
 * {@code port} and {@code path}; other options that do not apply to the entry's type are ignored.
 *
 * @param type postgres, prometheus, prometheus-remote-write or jsonfile
 * @param name name in logs, health, meters and the spill directory; defaults to the type, or
 *     type-index when several sinks share a type
 * @param url postgres: a {@code postgresql://user:password@host:port/db?...} URI or a
 *     {@code jdbc:postgresql:} URL of the storage database; a secret, never logged.
 *     prometheus-remote-write: the receiver's {@code http(s)://} write endpoint
 * @param user postgres: user name when the URL carries none; prometheus-remote-write: basic
 *     authentication user
 * @param password postgres: password when the URL carries none; prometheus-remote-write: basic
 *     authentication password; a secret, never logged
 * @param port prometheus: TCP port of the scrape endpoint (default 9187, the port registered
 *     for PostgreSQL exporters; 0 picks a free port); never the admin API's server.port
 * @param path prometheus: URL path of the scrape endpoint (default {@code /metrics});
 *     jsonfile: the file written (default {@code <data-dir>/measurements.jsonl})
 * @param batchSize most measurements handed to the sink in one write
 * @param batchDelay longest a measurement waits for a batch to fill before it is written
 * @param memoryQueue measurements kept in memory before older ones move to the spill log
 * @param diskBound size of the spill log above which the oldest measurements are dropped
 * @param retryInitial delay before the first retry of a failed write; doubles up to retryMax
 * @param retryMax longest delay between retries of a failed write
 * @param flushTimeout at shutdown, how long queued measurements may take to reach a healthy
 *     sink before the rest are persisted to the spill log
 * @param retention postgres: partitions entirely older than this are dropped; 0 keeps all
 * @param partitionInterval postgres: time range of one partition (at least one hour)
 * @param partitionsAhead postgres: future partitions kept created ahead of time
 * @param maintenanceInterval postgres: period of partition pre-creation, retention and the
 *     refresh of the dashboards' database listing
 * @param staleness prometheus: a series not updated for this long (or for twice its own
 *     reporting interval, whichever is longer) disappears from the endpoint
 * @param rotationSize jsonfile: the file is rotated when a write takes it past this size
 * @param keptFiles jsonfile: rotated files kept besides the current one
 * @param address prometheus: the local address the scrape endpoint binds to (e.g.
 *     {@code 127.0.0.1}); all interfaces when absent
 * @param bearerToken prometheus-remote-write: sent as {@code Authorization: Bearer}; a secret, never
 *     logged; excludes user/password (basic authentication)
 * @param headers prometheus-remote-write: extra request headers, e.g. {@code X-Scope-OrgID} for a
 *     tenant; values are never logged
 * @param tlsCaFile prometheus-remote-write: PEM file of the certificate authorities that an
 *     {@code https} receiver's certificate must chain to, instead of the JDK's default ones
 * @param connectTimeout prometheus-remote-write: longest wait for a TCP (and TLS) connection
 * @param requestTimeout prometheus-remote-write: longest wait for the receiver's answer to one request
 */
public record SinkProperties(
        SinkType type,
        String name,
        String url,
        String user,
        String password,
        Integer port,
        String path,
        Integer batchSize,
        Duration batchDelay,
        Integer memoryQueue,
        DataSize diskBound,
        Duration retryInitial,
        Duration retryMax,
        Duration flushTimeout,
        Duration retention,
        Duration partitionInterval,
        Integer partitionsAhead,
        Duration maintenanceInterval,
        Duration staleness,
        DataSize rotationSize,
        Integer keptFiles,
        String address,
        String bearerToken,
        Map<String, String> headers,
        Path tlsCaFile,
        Duration connectTimeout,
        Duration requestTimeout) {

    /** The one place of every default: an option that is absent (null) takes its value here. */
    @ConstructorBinding
    public SinkProperties {
        batchSize = orDefault(batchSize, 500);
        batchDelay = orDefault(batchDelay, Duration.ofSeconds(1));
        memoryQueue = orDefault(memoryQueue, 10_000);
        diskBound = orDefault(diskBound, DataSize.ofGigabytes(1));
        retryInitial = orDefault(retryInitial, Duration.ofSeconds(1));
        retryMax = orDefault(retryMax, Duration.ofSeconds(30));
        flushTimeout = orDefault(flushTimeout, Duration.ofSeconds(10));
        retention = orDefault(retention, Duration.ofDays(14));
        partitionInterval = orDefault(partitionInterval, Duration.ofDays(1));
        partitionsAhead = orDefault(partitionsAhead, 2);
        maintenanceInterval = orDefault(maintenanceInterval, Duration.ofHours(1));
        staleness = orDefault(staleness, Duration.ofMinutes(10));
        rotationSize = orDefault(rotationSize, DataSize.ofMegabytes(64));
        keptFiles = orDefault(keptFiles, 5);
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    /** An entry without the remote-write options. */
    public SinkProperties(SinkType type, String name, String url, String user, String password, Integer port,
            String path, Integer batchSize, Duration batchDelay, Integer memoryQueue, DataSize diskBound,
            Duration retryInitial, Duration retryMax, Duration flushTimeout, Duration retention,
            Duration partitionInterval, Integer partitionsAhead, Duration maintenanceInterval, Duration staleness,
            DataSize rotationSize, Integer keptFiles, String address) {
        this(type, name, url, user, password, port, path, batchSize, batchDelay, memoryQueue, diskBound,
                retryInitial, retryMax, flushTimeout, retention, partitionInterval, partitionsAhead,
                maintenanceInterval, staleness, rotationSize, keptFiles, address, null, null, null, null, null);
    }

    /** An entry without a bind address (all interfaces for a scrape endpoint). */
    public SinkProperties(SinkType type, String name, String url, String user, String password, Integer port,
            String path, Integer batchSize, Duration batchDelay, Integer memoryQueue, DataSize diskBound,
            Duration retryInitial, Duration retryMax, Duration flushTimeout, Duration retention,
            Duration partitionInterval, Integer partitionsAhead, Duration maintenanceInterval, Duration staleness,
            DataSize rotationSize, Integer keptFiles) {
        this(type, name, url, user, password, port, path, batchSize, batchDelay, memoryQueue, diskBound,
                retryInitial, retryMax, flushTimeout, retention, partitionInterval, partitionsAhead,
                maintenanceInterval, staleness, rotationSize, keptFiles, null, null, null, null, null, null);
    }

    /** Default port of the Prometheus endpoint: the one registered for PostgreSQL exporters. */
    public static final int DEFAULT_PROMETHEUS_PORT = 9187;
    public static final String DEFAULT_PROMETHEUS_PATH = "/metrics";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    private static final DataSize MIN_DISK_BOUND = DataSize.ofKilobytes(16);

    /** A sink of {@code type} with every option at its default. */
    public static SinkProperties defaults(SinkType type, String path) {
        return new SinkProperties(type, null, null, null, null, null, path, null, null, null, null, null, null,
                null, null, null, null, null, null, null, null);
    }

    public SinkProperties withName(String newName) {
        return new SinkProperties(type, newName, url, user, password, port, path, batchSize, batchDelay,
                memoryQueue, diskBound, retryInitial, retryMax, flushTimeout, retention, partitionInterval,
                partitionsAhead, maintenanceInterval, staleness, rotationSize, keptFiles, address, bearerToken,
                headers, tlsCaFile, connectTimeout, requestTimeout);
    }

    public SinkProperties withPort(int newPort) {
        return new SinkProperties(type, name, url, user, password, newPort, path, batchSize, batchDelay,
                memoryQueue, diskBound, retryInitial, retryMax, flushTimeout, retention, partitionInterval,
                partitionsAhead, maintenanceInterval, staleness, rotationSize, keptFiles, address, bearerToken,
                headers, tlsCaFile, connectTimeout, requestTimeout);
    }

    public SinkProperties withPath(String newPath) {
        return new SinkProperties(type, name, url, user, password, port, newPath, batchSize, batchDelay,
                memoryQueue, diskBound, retryInitial, retryMax, flushTimeout, retention, partitionInterval,
                partitionsAhead, maintenanceInterval, staleness, rotationSize, keptFiles, address, bearerToken,
                headers, tlsCaFile, connectTimeout, requestTimeout);
    }

    /** Never shows the URL (it may hold a password), the password, the bearer token or header values. */
    @Override
    public String toString() {
        return "SinkProperties[type=" + type + ", name=" + name + (url == null ? "" : ", url=***")
                + (password == null ? "" : ", password=***") + (bearerToken == null ? "" : ", bearerToken=***")
                + (headers.isEmpty() ? "" : ", headers=" + headers.keySet()) + "]";
    }

    /**
     * Where this sink writes, for the status API and the console's sinks page: host, port and path
     * of a database or receiver URL (never its user, password, query parameters or headers), the
     * scrape endpoint's address, the file's path; null when unknown.
     */
    public String destination() {
        if (type == null) {
            return null;
        }
        return switch (type) {
            case POSTGRES, PROMETHEUS_REMOTE_WRITE -> withoutCredentials(url);
            case PROMETHEUS -> "scrape endpoint http://" + (address == null ? "*" : address) + ":"
                    + (effectivePort() == 0 ? "<free port>" : effectivePort()) + effectivePrometheusPath();
            case JSONFILE -> path == null ? null : java.nio.file.Path.of(path).toAbsolutePath().normalize().toString();
        };
    }

    private static String withoutCredentials(String url) {
        if (url == null) {
            return null;
        }
        try {
            var uri = java.net.URI.create(url.startsWith("jdbc:") ? url.substring("jdbc:".length()) : url);
            if (uri.getHost() == null) {
                return uri.getScheme() + " (address not shown)";
            }
            return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
                    + (uri.getRawPath() == null ? "" : uri.getRawPath());
        } catch (IllegalArgumentException e) {
            return "(a URL that does not parse as a URI; not shown)";
        }
    }

    /** The scrape port, defaulted. */
    public int effectivePort() {
        return port == null ? DEFAULT_PROMETHEUS_PORT : port;
    }

    /** The scrape path, defaulted. */
    public String effectivePrometheusPath() {
        return path == null || path.isBlank() ? DEFAULT_PROMETHEUS_PATH : path;
    }

    /**
     * Every problem of this entry, each naming its property under {@code prefix}
     * (e.g. {@code pgharvest.sinks[0]}). Secrets are never quoted back.
     */
    List<String> problems(String prefix) {
        var problems = new ArrayList<String>();
        if (type == null) {
            problems.add(prefix + ".type is required (postgres, prometheus, prometheus-remote-write or jsonfile)");
            return problems;
        }
        if (name != null && !NAME.matcher(name).matches()) {
            problems.add(prefix + ".name must be 1-64 letters, digits, '_', '.' or '-' (was '" + name + "')");
        }
        if (type != SinkType.PROMETHEUS && address != null) {
            problems.add(prefix + ".address applies to prometheus sinks only (the scrape endpoint's bind address)");
        }
        if (type != SinkType.PROMETHEUS_REMOTE_WRITE) {
            refuseRemoteWriteOptions(prefix, problems);
        }
        switch (type) {
            case POSTGRES -> checkPostgres(prefix, problems);
            case PROMETHEUS -> checkPrometheus(prefix, problems);
            case JSONFILE -> checkJsonFile(prefix, problems);
            case PROMETHEUS_REMOTE_WRITE -> problems.addAll(RemoteWriteOptions.problems(prefix, this));
        }
        checkRange(problems, prefix + ".batch-size", batchSize, 1, 100_000);
        checkRange(problems, prefix + ".memory-queue", memoryQueue, 1, 10_000_000);
        checkPositive(problems, prefix + ".batch-delay", batchDelay);
        checkPositive(problems, prefix + ".retry-initial", retryInitial);
        checkPositive(problems, prefix + ".retry-max", retryMax);
        checkPositive(problems, prefix + ".flush-timeout", flushTimeout);
        if (retryInitial != null && retryMax != null && retryMax.compareTo(retryInitial) < 0) {
            problems.add(prefix + ".retry-max must not be shorter than retry-initial");
        }
        if (diskBound == null || diskBound.compareTo(MIN_DISK_BOUND) < 0) {
            problems.add(prefix + ".disk-bound must be at least 16KB (was " + diskBound + ")");
        }
        return problems;
    }

    private void checkPostgres(String prefix, List<String> problems) {
        String lower = url == null ? "" : url.strip().toLowerCase(Locale.ROOT);
        if (lower.isEmpty()) {
            problems.add(prefix + ".url is required for a postgres sink");
        } else if (!(lower.startsWith("postgresql://") || lower.startsWith("postgres://")
                || lower.startsWith("jdbc:postgresql:"))) {
            // The value is not quoted: it may hold a password.
            problems.add(prefix + ".url must be a postgresql:// URI or a jdbc:postgresql: URL");
        }
        if (retention == null || retention.isNegative()
                || (!retention.isZero() && retention.compareTo(Duration.ofHours(1)) < 0)) {
            problems.add(prefix + ".retention must be 0 (keep everything) or at least 1h (was " + retention + ")");
        }
        if (partitionInterval == null || partitionInterval.compareTo(Duration.ofHours(1)) < 0
                || partitionInterval.toMillis() % Duration.ofHours(1).toMillis() != 0) {
            problems.add(prefix + ".partition-interval must be a whole number of hours, at least 1h (was "
                    + partitionInterval + ")");
        }
        checkRange(problems, prefix + ".partitions-ahead", partitionsAhead, 0, 1000);
        if (maintenanceInterval == null || maintenanceInterval.compareTo(Duration.ofSeconds(1)) < 0) {
            problems.add(prefix + ".maintenance-interval must be at least 1s (was " + maintenanceInterval + ")");
        }
    }

    private void checkPrometheus(String prefix, List<String> problems) {
        if (port != null && (port < 0 || port > 65_535)) {
            problems.add(prefix + ".port must be between 0 and 65535 (was " + port + ")");
        }
        if (path != null && !path.isBlank() && !path.startsWith("/")) {
            problems.add(prefix + ".path must start with '/' (was '" + path + "')");
        }
        checkPositive(problems, prefix + ".staleness", staleness);
    }

    private void refuseRemoteWriteOptions(String prefix, List<String> problems) {
        var given = new ArrayList<String>();
        if (bearerToken != null) {
            given.add("bearer-token");
        }
        if (!headers.isEmpty()) {
            given.add("headers");
        }
        if (tlsCaFile != null) {
            given.add("tls-ca-file");
        }
        if (connectTimeout != null) {
            given.add("connect-timeout");
        }
        if (requestTimeout != null) {
            given.add("request-timeout");
        }
        given.forEach(option -> problems.add(prefix + "." + option + " applies to prometheus-remote-write sinks only"));
    }

    private void checkJsonFile(String prefix, List<String> problems) {
        if (rotationSize == null || rotationSize.toBytes() < 1024) {
            problems.add(prefix + ".rotation-size must be at least 1KB (was " + rotationSize + ")");
        }
        checkRange(problems, prefix + ".kept-files", keptFiles, 0, 10_000);
    }

    private static void checkRange(List<String> problems, String property, int value, int min, int max) {
        if (value < min || value > max) {
            problems.add(property + " must be between " + min + " and " + max + " (was " + value + ")");
        }
    }

    private static void checkPositive(List<String> problems, String property, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            problems.add(property + " must be a positive duration (was " + value + ")");
        }
    }

    private static <T> T orDefault(T value, T fallback) {
        return value == null ? fallback : value;
    }
}
