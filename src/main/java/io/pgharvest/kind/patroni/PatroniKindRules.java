package io.pgharvest.kind.patroni;

import io.pgharvest.model.KindRules;
import io.pgharvest.model.SourceKind;
import io.pgharvest.model.connection.ConnectionSyntax;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Kind {@code patroni}: a Patroni cluster (or every cluster of a namespace) read from etcd; its
 * connection string names the DCS, and the members' addresses come from there.
 */
public final class PatroniKindRules implements KindRules {

    static final String LABEL = "patroni";

    @Override
    public String label() {
        return LABEL;
    }

    /**
     * pgwatch's former names for this kind: it reads them as {@code patroni} (the DCS path decides
     * between one cluster and a whole namespace), and so does pgharvest.
     */
    @Override
    public Set<String> formerLabels() {
        return Set.of("patroni-continuous-discovery", "patroni-namespace-discovery");
    }

    /** The DCS's address ({@link DcsAddress}): the members' addresses come from there. */
    @Override
    public ConnectionSyntax connectionSyntax() {
        return DcsAddress.SYNTAX;
    }

    /** Every member found collects Patroni's REST API metrics, whatever the selection. */
    @Override
    public Map<String, String> addedNativeMetrics() {
        return Map.of(PatroniRestMetric.NAME, "the patroni_* families of a Patroni member's REST API /metrics");
    }

    /** pgwatch's {@code patroni} preset names the REST API's families, which every member collects. */
    @Override
    public Optional<String> collectsUnselected(String metric) {
        return metric.startsWith("patroni_") ? Optional.of("pgharvest reads the patroni_* families from every"
                + " member's Patroni REST API (/metrics) for every patroni source, every"
                + " pgharvest.patroni.api-metrics-interval, without a selection") : Optional.empty();
    }

    /** The registered kind. */
    static SourceKind kind() {
        return SourceKind.fromLabel(LABEL);
    }
}
