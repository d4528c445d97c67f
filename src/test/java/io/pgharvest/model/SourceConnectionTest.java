package io.pgharvest.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.InvalidConnectionStringException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class SourceConnectionTest {

    private static final String POSTGRES = "postgresql://monitor:s3cret@db1:5433/orders?sslmode=require";

    @Test
    void aSourceParsesItsConnectionOnceByItsKindAndKeepsTheTextAsWritten() {
        Source source = source(" " + POSTGRES, SourceKind.fromLabel("pgbouncer"));

        assertThat(source.connStr()).isEqualTo(" " + POSTGRES);
        ConnectionString parsed = source.connection().connectionString();
        assertThat(parsed.hosts()).containsExactly(new ConnectionString.HostPort("db1", 5433));
        assertThat(parsed.database()).isEqualTo("orders");
        assertThat(source.connection().connectionString()).isSameAs(parsed);
        assertThat(source.connection().parsed()).containsSame(parsed);
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
    void maskingAndRedactionHideThePassword() {
        SourceConnection postgres = SourceConnection.parse(SourceKind.fromLabel("postgres"), POSTGRES);

        assertThat(postgres.masked()).isEqualTo("postgresql://monitor:********@db1:5433/orders?sslmode=require");
        assertThat(postgres.redact("password=s3cret rejected")).isEqualTo("password=******** rejected");
        assertThat(postgres.redact("at postgresql://monitor:s3cret@db1:5433/orders"))
                .isEqualTo("at postgresql://monitor:********@db1:5433/orders");
        assertThat(SourceConnection.parse(SourceKind.fromLabel("postgres"), "postgresql://monitor:e@db1/orders")
                .redact("role \"monitor\" is not permitted to log in"))
                .isEqualTo("role \"monitor\" is not permitted to log in");
        assertThat(postgres.toString()).doesNotContain("s3cret");
    }

    @Test
    void aSeparatePasswordReplacesTheOneInTheTextAndReachesTheSessions() {
        SourceConnection postgres = SourceConnection.parse(SourceKind.fromLabel("postgres"), POSTGRES).withPassword("other");
        SourceConnection broken = SourceConnection.parse(SourceKind.fromLabel("postgres"), "host=");

        assertThat(postgres.text()).isEqualTo("postgresql://monitor:other@db1:5433/orders?sslmode=require");
        assertThat(postgres.connectionString().password()).contains("other");
        assertThat(broken.withPassword("other")).isSameAs(broken);
        assertThat(postgres.withPassword(null)).isSameAs(postgres);
    }

    private static Source source(String connStr, SourceKind kind) {
        return new Source("s", connStr, kind, null, true, null, null, null, null, null, false, null, null);
    }
}
