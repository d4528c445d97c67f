package io.pgharvest.kind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.kind.postgres.SessionOpener;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.SourceKind;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The registry is the one place from a kind to behaviour: each kind of source has at most one
 * endpoint, a kind without one (Patroni: its members are collected) is refused with a reason, and
 * a new endpoint is reached by its kind with nothing else changed.
 */
@Tag("fast")
class EndpointRegistryTest {

    /** An endpoint written for the test: what adding a kind takes on the engine's side. */
    private static final class RecordingEndpoint implements Endpoint {
        private final Set<SourceKind> kinds;
        ConnectionString opened;

        RecordingEndpoint(SourceKind... kinds) {
            this.kinds = Set.of(kinds);
        }

        @Override
        public Set<SourceKind> kinds() {
            return kinds;
        }

        @Override
        public SourceSession open(ConnectionString conn, Instant now) throws SQLException {
            opened = conn;
            throw new SQLException("recorded", "08001");
        }

        @Override
        public ConnectionTestResult test(ConnectionString conn, Duration timeout) {
            throw new UnsupportedOperationException();
        }
    }

    @Test
    void twoEndpointsForOneKindAreRefusedNamingBoth() {
        assertThatThrownBy(() -> new EndpointRegistry(List.of(new RecordingEndpoint(SourceKind.fromLabel("pgbouncer")),
                new RecordingEndpoint(SourceKind.fromLabel("pgpool"), SourceKind.fromLabel("pgbouncer")))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pgbouncer").hasMessageContaining(RecordingEndpoint.class.getName());
    }

    @Test
    void aKindIsOpenedByItsOwnEndpointOnly() {
        var pooler = new RecordingEndpoint(SourceKind.fromLabel("pgpool"));
        var registry = new EndpointRegistry(List.of(pooler));
        ConnectionString conn = ConnectionString.parse("host=127.0.0.1 port=9999 user=u dbname=pgpool");

        assertThatThrownBy(() -> registry.open(SourceKind.fromLabel("pgpool"), conn, Instant.now())).hasMessage("recorded");
        assertThat(pooler.opened).isSameAs(conn);
        assertThat(registry.hasSession(SourceKind.fromLabel("pgpool"))).isTrue();
        assertThat(registry.hasSession(SourceKind.fromLabel("pgbouncer"))).isFalse();
    }

    @Test
    void theApplicationsKindsWithoutEndpointAreTheDiscoveringOnes() {
        EndpointRegistry registry = TestEndpoints.of(new SessionOpener(new SessionSettings(Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofSeconds(1), Duration.ofSeconds(1))));
        for (SourceKind kind : SourceKind.values()) {
            assertThat(registry.hasSession(kind)).as(kind.label()).isEqualTo(kind != SourceKind.fromLabel("patroni"));
        }
        assertThatThrownBy(() -> registry.open(SourceKind.fromLabel("patroni"), ConnectionString.parse("host=127.0.0.1"),
                Instant.now())).isInstanceOf(SQLException.class).hasMessageContaining("not collected themselves");
        assertThatThrownBy(() -> registry.test(SourceKind.fromLabel("patroni"), ConnectionString.parse("host=127.0.0.1"),
                Duration.ofSeconds(1))).hasMessageContaining("no connection of their own");
    }
}
