package io.pgharvest.kind.patroni;

import io.pgharvest.discovery.AddedMetrics;
import io.pgharvest.discovery.DiscoveredSource;
import io.pgharvest.discovery.DiscoveryException;
import io.pgharvest.discovery.SourceDiscoverer;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceConnection;
import io.pgharvest.model.SourceKind;
import io.pgharvest.model.SourceRules;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.InvalidConnectionStringException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expands a {@link PatroniKindRules patroni} source into one PostgreSQL source (the default kind) per cluster member, read
 * from the DCS every {@code pgharvest.patroni.poll-interval}. A member's source is named as
 * pgwatch names it, {@code <source>[_<scope>]_<member>_<database>} (the scope only when the
 * address names a whole namespace), and is collected with the configured source's selections,
 * tags and group; whether a member gets the primary or the standby selection is decided by its
 * reaper from the server's recovery state, as for any source. The member's Patroni role is its
 * discovery role: when it changes, the engine has the reaper re-read the recovery state. Each
 * member also collects Patroni's REST API metrics ({@link PatroniRestMetric}) from the
 * {@code api_url} it publishes, every {@code pgharvest.patroni.api-metrics-interval}.
 *
 * <p>Credentials: Patroni publishes each member's address but none; the monitoring login comes
 * from the DCS address's parameters and goes only to the members listed under the configured
 * namespace/scope.
 */
final class PatroniDiscoverer implements SourceDiscoverer {

    private static final Logger log = LoggerFactory.getLogger(PatroniDiscoverer.class);

    private final ClusterReader reader;
    private final Duration pollInterval;
    /** How often a member's REST API metrics are read; zero: not at all. */
    private final Duration apiMetricsInterval;

    PatroniDiscoverer(ClusterReader reader, Duration pollInterval, Duration apiMetricsInterval) {
        this.reader = reader;
        this.pollInterval = pollInterval;
        this.apiMetricsInterval = apiMetricsInterval;
    }

    @Override
    public Set<SourceKind> kinds() {
        return Set.of(PatroniKindRules.kind());
    }

    @Override
    public Duration rediscoveryInterval(Source configured, Duration configuredDefault) {
        return pollInterval;
    }

    @Override
    public List<DiscoveredSource> discover(Source configured) throws DiscoveryException {
        DcsAddress address;
        try {
            address = configured.connection().parsedAs(DcsAddress.class);
        } catch (InvalidConnectionStringException e) {
            throw new DiscoveryException("the DCS address is invalid: " + e.getMessage());
        }
        List<PatroniMember> members;
        try {
            members = reader.members(address);
        } catch (IOException e) {
            throw new DiscoveryException("cannot read the Patroni cluster from etcd: " + scrub(e.getMessage(), address));
        }
        var found = new ArrayList<DiscoveredSource>();
        for (PatroniMember member : members) {
            memberSource(configured, address, member).ifPresent(
                    source -> found.add(new DiscoveredSource(source, member.displayRole(), restApiMetrics(member))));
        }
        return found;
    }

    /** The REST API metrics of a member that publishes its {@code api_url}, unless they are off. */
    private AddedMetrics restApiMetrics(PatroniMember member) {
        if (member.apiUrl() == null || apiMetricsInterval.isZero()) {
            return AddedMetrics.NONE;
        }
        return new AddedMetrics(List.of(PatroniRestMetric.DEFINITION), (int) apiMetricsInterval.toSeconds(),
                member.apiUrl());
    }

    private static Optional<Source> memberSource(Source configured, DcsAddress address, PatroniMember member) {
        if (member.connUrl() == null) {
            log.warn("Source {}: Patroni member {} publishes no conn_url; not collected", configured.name(),
                    member.name());
            return Optional.empty();
        }
        ConnectionString url;
        try {
            url = ConnectionString.parse(member.connUrl());
        } catch (InvalidConnectionStringException e) {
            log.warn("Source {}: Patroni member {} publishes a conn_url that does not parse ({}); not collected",
                    configured.name(), member.name(), e.getMessage());
            return Optional.empty();
        }
        ConnectionString.HostPort server = url.hosts().getFirst();
        SourceConnection connection = SourceConnection.parse(SourceKind.defaultKind(),
                address.memberConnStr(server.host(), server.port(), url.database()));
        String database = connection.connectionString().database();
        String name = configured.name() + (address.scope().isPresent() ? "" : "_" + member.scope())
                + "_" + member.name() + "_" + database;
        if (!name.matches(SourceRules.SOURCE_NAME_REGEX)) {
            log.warn("Source {}: member {} would be collected as '{}', which is not a valid source name (at most 63"
                    + " letters, digits, '_', '-', '.'); not collected", configured.name(), member.name(), name);
            return Optional.empty();
        }
        return Optional.of(new Source(name, connection, SourceKind.defaultKind(), configured.group(), true,
                configured.preset(), configured.metrics(), configured.standbyPreset(), configured.standbyMetrics(),
                configured.tags(), configured.onlyIfPrimary(), null, null, configured.keepQueryLiterals(),
                configured.keepCommandSettings()));
    }

    private static String scrub(String message, DcsAddress address) {
        return address.redact(message == null ? "" : message);
    }
}
