package io.pgharvest.kind.patroni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceConnection;
import io.pgharvest.model.SourceKind;
import io.pgharvest.model.SourceRules;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.HostFileParameters;
import io.pgharvest.model.connection.InvalidConnectionStringException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class DcsAddressTest {

    @Test
    void readsPgwatchsEtcdAddressWithEndpointsNamespaceAndScope() {
        DcsAddress address = DcsAddress.parse("etcd://etcd1:2379,etcd2:2380,etcd3/service/batman");

        assertThat(address.endpoints()).containsExactly(new ConnectionString.HostPort("etcd1", 2379),
                new ConnectionString.HostPort("etcd2", 2380), new ConnectionString.HostPort("etcd3", 2379));
        assertThat(address.namespace()).isEqualTo("service");
        assertThat(address.scope()).contains("batman");
        assertThat(address.keyPrefix()).isEqualTo("/service/batman/");
    }

    @Test
    void aPathWithOnlyTheNamespaceCoversEveryClusterInIt() {
        DcsAddress address = DcsAddress.parse("etcd://127.0.0.1:2379/service");

        assertThat(address.scope()).isEmpty();
        assertThat(address.keyPrefix()).isEqualTo("/service/");
    }

    @Test
    void queryParametersAreTheMembersLoginAndTheUserInformationIsEtcds() {
        DcsAddress address = DcsAddress.parse(
                "etcd://root:etcd%20pw@e1:2379/service/demo?user=monitor&password=s%27cr%5Cet&sslmode=require");

        assertThat(address.etcdUser()).contains("root");
        assertThat(address.etcdPassword()).contains("etcd pw");
        ConnectionString member = ConnectionString.parse(address.memberConnStr("10.0.0.5", 5433, "postgres"));
        assertThat(member.hosts()).containsExactly(new ConnectionString.HostPort("10.0.0.5", 5433));
        assertThat(member.user()).isEqualTo("monitor");
        assertThat(member.password()).contains("s'cr\\et");
        assertThat(member.database()).isEqualTo("postgres");
        assertThat(member.parameters()).containsEntry("sslmode", "require");
        assertThat(address.secrets()).containsExactlyInAnyOrder("etcd pw", "s'cr\\et");
    }

    @Test
    void theDatabaseParameterWinsOverPatronis() {
        DcsAddress address = DcsAddress.parse("etcd://e1/service/demo?dbname=app");

        assertThat(ConnectionString.parse(address.memberConnStr("h", 5432, "postgres")).database()).isEqualTo("app");
    }

    @Test
    void maskingHidesBothPasswordsAndRenderingRoundTrips() {
        String text = "etcd://root:etcdpw@e1:2379,e2:2379/service/demo?user=monitor&password=memberpw";
        DcsAddress address = DcsAddress.parse(text);

        assertThat(address.masked()).doesNotContain("etcdpw").doesNotContain("memberpw")
                .isEqualTo("etcd://root:********@e1:2379,e2:2379/service/demo?user=monitor&password=********");
        assertThat(address.toString()).isEqualTo(address.masked());
        assertThat(DcsAddress.parse(address.render())).isEqualTo(address);
        assertThat(address.withMemberPassword("other").memberParameters()).containsEntry("password", "other");
    }

    @Test
    void refusesWhatItCannotActOn() {
        assertThatThrownBy(() -> DcsAddress.parse("zookeeper://z1:2181/service/demo"))
                .hasMessageContaining("DCS 'zookeeper' is not supported");
        assertThatThrownBy(() -> DcsAddress.parse("consul://c1:8500/service/demo"))
                .hasMessageContaining("DCS 'consul' is not supported");
        assertThatThrownBy(() -> DcsAddress.parse("etcd://e1/service/demo?ca_file=/etc/ca.pem"))
                .hasMessageContaining("'ca_file' is not supported");
        assertThatThrownBy(() -> DcsAddress.parse("etcd://e1/service/demo?host=elsewhere"))
                .hasMessageContaining("'host' cannot be set");
        assertThatThrownBy(() -> DcsAddress.parse("etcd://e1/"))
                .hasMessageContaining("/namespace or /namespace/scope");
        assertThatThrownBy(() -> DcsAddress.parse("etcd://e1/a/b/c"))
                .hasMessageContaining("/namespace or /namespace/scope");
        assertThatThrownBy(() -> DcsAddress.parse("etcd://e1:x/service"))
                .hasMessageContaining("not a number");
        assertThatThrownBy(() -> DcsAddress.parse("etcd://e1/service?frobnicate=1"))
                .hasMessageContaining("frobnicate");
    }

    @Test
    void errorsNeverQuoteAPassword() {
        assertThatThrownBy(() -> DcsAddress.parse("etcd://u:topsecret@e1:bad/service"))
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("topsecret"));
    }

    @Test
    void pgwatchsFormerPatroniKindsArePatroni() {
        assertThat(SourceKind.fromLabel("patroni")).isEqualTo(SourceKind.fromLabel("patroni"));
        assertThat(SourceKind.fromLabel("patroni-continuous-discovery")).isEqualTo(SourceKind.fromLabel("patroni"));
        assertThat(SourceKind.fromLabel("patroni-namespace-discovery")).isEqualTo(SourceKind.fromLabel("patroni"));
    }

    @Test
    void sourceRulesCheckAPatroniSourcesAddressAndRefuseTheMask() {
        Source good = patroni("etcd://e1/service/demo?user=monitor&password=pw");
        Source masked = patroni("etcd://e1/service/demo?user=monitor&password=********");
        Source bad = patroni("postgresql://h/db");
        ConfigSnapshot empty = ConfigSnapshot.empty();

        assertThat(SourceRules.check(good, empty)).isEmpty();
        assertThat(SourceRules.check(masked, empty)).extracting(FieldProblem::field).containsExactly("connStr");
        assertThat(SourceRules.check(bad, empty)).extracting(FieldProblem::message).singleElement()
                .asString().contains("etcd://");
        assertThat(good.toString()).doesNotContain("pw&").contains("password=********");
    }

    @Test
    void aPatroniSourceReadsItsTextAsTheDcsAddress() {
        Source source = patroni(DCS);

        DcsAddress address = source.connection().parsedAs(DcsAddress.class);
        assertThat(address.keyPrefix()).isEqualTo("/service/demo/");
        assertThat(source.connection().parsedAs(DcsAddress.class)).isSameAs(address);
        assertThatThrownBy(() -> source.connection().connectionString())
                .isInstanceOf(InvalidConnectionStringException.class).hasMessageContaining("etcd://");
        assertThatThrownBy(() -> new Source("s", POSTGRES, SourceKind.fromLabel("pgbouncer"), null, true, null, null,
                null, null, null, false, null, null).connection().parsedAs(DcsAddress.class))
                .isInstanceOf(InvalidConnectionStringException.class).hasMessageContaining("DcsAddress");
    }

    @Test
    void maskingRedactionAndASeparatePasswordReachEveryPasswordOfTheAddress() {
        SourceConnection dcs = SourceConnection.parse(SourceKind.fromLabel("patroni"), DCS);

        assertThat(dcs.masked()).doesNotContain("etcdpw").doesNotContain("memberpw").contains("********");
        assertThat(dcs.redact("etcd http://root:etcdpw@etcd1:2379 refused, sslpassword = 'memberpw'"))
                .isEqualTo("etcd http://root:********@etcd1:2379 refused, sslpassword = ********");
        assertThat(dcs.toString()).doesNotContain("pw@").doesNotContain("memberpw");
        SourceConnection other = dcs.withPassword("other");
        assertThat(other.parsedAs(DcsAddress.class).memberParameters()).containsEntry("password", "other");
        assertThat(other.parsedAs(DcsAddress.class).etcdPassword()).contains("etcdpw");
    }

    @Test
    void aConnectionParsedForAnotherKindIsReadAgainTheWayAPatroniSourceReadsIt() {
        SourceConnection asPostgres = SourceConnection.parse(SourceKind.fromLabel("postgres"), DCS);
        Source patroni = new Source("p", asPostgres, SourceKind.fromLabel("patroni"), null, true, null, null, null, null,
                null, false, null, null);

        assertThat(asPostgres.problem()).isPresent();
        assertThat(patroni.connection().parsedAs(DcsAddress.class).namespace()).isEqualTo("service");
        assertThat(patroni).isEqualTo(patroni(DCS));
    }

    @Test
    void theMembersParametersNamingHostFilesAreRefusedThroughTheApi() {
        assertThat(HostFileParameters.refusal(DcsAddress.parse("etcd://e1/service/demo?sslkey=/etc/key.pem")))
                .get().asString().contains("sslkey");
        assertThat(HostFileParameters.refusal(DcsAddress.parse(DCS))).isEmpty();
    }

    @Test
    void theKindContributesItsSyntaxAndTheMetricsItsDiscoveryAdds() {
        SourceKind kind = SourceKind.fromLabel("patroni");

        assertThat(kind.connectionExample()).startsWith("etcd://");
        assertThat(DcsAddress.parse(kind.connectionExample()).scope()).contains("cluster");
        assertThat(kind.connectionHint()).contains("etcd://").contains("namespace");
        assertThat(kind.addedNativeMetrics()).containsOnlyKeys(PatroniRestMetric.NAME);
    }

    private static final String POSTGRES = "postgresql://monitor:s3cret@db1:5433/orders?sslmode=require";
    private static final String DCS = "etcd://root:etcdpw@e1:2379/service/demo?user=monitor&password=memberpw";

    private static Source patroni(String connStr) {
        return new Source("p", connStr, SourceKind.fromLabel("patroni"), null, true, null, null, null, null, null, false, null,
                null);
    }
}
