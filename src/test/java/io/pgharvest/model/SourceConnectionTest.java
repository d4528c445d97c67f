package io.pgharvest.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.DcsAddress;
import io.pgharvest.model.connection.InvalidConnectionStringException;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class SourceConnectionTest {

    private static final String POSTGRES = "postgresql://monitor:s3cret@db1:5433/orders?sslmode=require";
    private static final String DCS = "etcd://root:etcdpw@e1:2379/service/demo?user=monitor&password=memberpw";

    @Test
    void aSourceParsesItsConnectionOnceByItsKindAndKeepsTheTextAsWritten() {
        Source source = source(" " + POSTGRES, SourceKind.fromLabel("pgbouncer"));

        assertThat(source.connStr()).isEqualTo(" " + POSTGRES);
        ConnectionString parsed = source.connection().connectionString();
        assertThat(parsed.hosts()).containsExactly(new ConnectionString.HostPort("db1", 5433));
        assertThat(parsed.database()).isEqualTo("orders");
        assertThat(source.connection().connectionString()).isSameAs(parsed);
        assertThatThrownBy(() -> source.connection().dcsAddress())
                .isInstanceOf(InvalidConnectionStringException.class).hasMessageContaining("not a DCS address");
    }

    @Test
    void aPatroniSourceReadsItsTextAsTheDcsAddress() {
        Source source = source(DCS, SourceKind.fromLabel("patroni"));

        DcsAddress address = source.connection().dcsAddress();
        assertThat(address.keyPrefix()).isEqualTo("/service/demo/");
        assertThatThrownBy(() -> source.connection().connectionString())
                .isInstanceOf(InvalidConnectionStringException.class);
    }

    @Test
    void textThatDoesNotParseIsAValueCarryingTheProblemAndIsWithheldWhenShown() {
        Source source = source("postgresql://monitor:s3cret@db1:99999/orders", SourceKind.fromLabel("postgres"));

        assertThat(source.connection().parsed()).isEmpty();
        assertThat(source.connection().problem()).get().extracting(Exception::getMessage).asString()
                .contains("65535").doesNotContain("s3cret");
        assertThat(source.connection().masked()).isEqualTo(ConnectionString.MASK);
        assertThat(source.toString()).contains("<connection string that does not parse>").doesNotContain("s3cret");
        assertThatThrownBy(() -> source.connection().connectionString())
                .isSameAs(source.connection().problem().orElseThrow());
        assertThat(SourceRules.check(source, ConfigSnapshot.empty())).extracting(FieldProblem::field).contains("connStr");
    }

    @Test
    void maskingAndRedactionHideEveryPasswordOfBothForms() {
        SourceConnection postgres = SourceConnection.parse(SourceKind.fromLabel("postgres"), POSTGRES);
        SourceConnection dcs = SourceConnection.parse(SourceKind.fromLabel("patroni"), DCS);

        assertThat(postgres.masked()).isEqualTo("postgresql://monitor:********@db1:5433/orders?sslmode=require");
        assertThat(dcs.masked()).doesNotContain("etcdpw").doesNotContain("memberpw").contains("********");
        assertThat(postgres.redact("password=s3cret rejected")).isEqualTo("password=******** rejected");
        assertThat(postgres.redact("at postgresql://monitor:s3cret@db1:5433/orders"))
                .isEqualTo("at postgresql://monitor:********@db1:5433/orders");
        assertThat(dcs.redact("etcd http://root:etcdpw@etcd1:2379 refused, sslpassword = 'memberpw'"))
                .isEqualTo("etcd http://root:********@etcd1:2379 refused, sslpassword = ********");
        assertThat(SourceConnection.parse(SourceKind.fromLabel("postgres"), "postgresql://monitor:e@db1/orders")
                .redact("role \"monitor\" is not permitted to log in"))
                .isEqualTo("role \"monitor\" is not permitted to log in");
        assertThat(List.of(postgres.toString(), dcs.toString())).noneMatch(text -> text.contains("s3cret")
                || text.contains("pw@") || text.contains("memberpw"));
    }

    @Test
    void aSeparatePasswordReplacesTheOneInTheTextAndReachesTheSessions() {
        SourceConnection postgres = SourceConnection.parse(SourceKind.fromLabel("postgres"), POSTGRES).withPassword("other");
        SourceConnection dcs = SourceConnection.parse(SourceKind.fromLabel("patroni"), DCS).withPassword("other");
        SourceConnection broken = SourceConnection.parse(SourceKind.fromLabel("postgres"), "host=");

        assertThat(postgres.text()).isEqualTo("postgresql://monitor:other@db1:5433/orders?sslmode=require");
        assertThat(postgres.connectionString().password()).contains("other");
        assertThat(dcs.dcsAddress().memberParameters()).containsEntry("password", "other");
        assertThat(dcs.dcsAddress().etcdPassword()).contains("etcdpw");
        assertThat(broken.withPassword("other")).isSameAs(broken);
        assertThat(postgres.withPassword(null)).isSameAs(postgres);
    }

    @Test
    void aConnectionParsedForAnotherKindIsReadAgainTheWayTheSourcesKindReadsIt() {
        SourceConnection asPostgres = SourceConnection.parse(SourceKind.fromLabel("postgres"), DCS);
        Source patroni = new Source("s", asPostgres, SourceKind.fromLabel("patroni"), null, true, null, null, null, null, null,
                false, null, null);

        assertThat(asPostgres.problem()).isPresent();
        assertThat(patroni.connection().dcsAddress().namespace()).isEqualTo("service");
        assertThat(patroni).isEqualTo(source(DCS, SourceKind.fromLabel("patroni")));
    }

    private static Source source(String connStr, SourceKind kind) {
        return new Source("s", connStr, kind, null, true, null, null, null, null, null, false, null, null);
    }
}
