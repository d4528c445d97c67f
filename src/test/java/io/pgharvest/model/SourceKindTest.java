package io.pgharvest.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.model.connection.ConnectionString;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The kernel knows the kinds only as the kind packages register them (META-INF/services): the
 * order, the names, the former names and the messages that list them are what they were when the
 * kinds were an enum of the kernel.
 */
@Tag("fast")
class SourceKindTest {

    @Test
    void theKindsAreTheRegisteredOnesInTheRegistrationOrderWithPostgresTheDefault() {
        assertThat(SourceKind.values()).extracting(SourceKind::label)
                .containsExactly("postgres", "postgres-continuous-discovery", "pgbouncer", "pgpool", "patroni");
        assertThat(SourceKind.defaultKind().label()).isEqualTo("postgres");
        assertThat(SourceKind.fromLabel(null)).isSameAs(SourceKind.defaultKind());
        assertThat(SourceKind.fromLabel(" ")).isSameAs(SourceKind.defaultKind());
        assertThat(new Source("s", "host=db", null, null, true, null, null, null, null, null, false, null, null)
                .kind()).isSameAs(SourceKind.fromLabel("postgres"));
    }

    @Test
    void aLabelReadsTheSameKindWhateverItsCaseOrFormerSpelling() {
        assertThat(SourceKind.fromLabel(" PgBouncer ")).isSameAs(SourceKind.fromLabel("pgbouncer"));
        assertThat(SourceKind.fromLabel("patroni-continuous-discovery")).isSameAs(SourceKind.fromLabel("patroni"));
        assertThat(SourceKind.fromLabel("Patroni-Namespace-Discovery")).isSameAs(SourceKind.fromLabel("patroni"));
        assertThat(SourceKind.fromLabel("pgpool")).hasToString("pgpool");
    }

    @Test
    void anUnknownKindIsRefusedNamingEveryRegisteredKind() {
        assertThatThrownBy(() -> SourceKind.fromLabel("prometheus"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown source kind 'prometheus', expected one of postgres, postgres-continuous-discovery,"
                        + " pgbouncer, pgpool, patroni");
    }

    @Test
    void theRulesOfEachKindComeFromItsPackage() {
        assertThat(SourceKind.values()).filteredOn(kind -> kind.rules().connectionSyntax() != ConnectionString.SYNTAX)
                .extracting(kind -> kind.rules().connectionSyntax().getClass().getPackageName())
                .containsExactly("io.pgharvest.kind.patroni");
        assertThat(SourceKind.values()).filteredOn(kind -> kind.rules().selectsDatabases())
                .extracting(SourceKind::label).containsExactly("postgres-continuous-discovery");
        assertThat(SourceKind.fromLabel("pgbouncer").rules().getClass().getPackageName())
                .isEqualTo("io.pgharvest.kind.pooler");
    }

    @Test
    void thePoolerSqlKeysAreAcceptedAndNamedBesideTheMajorVersions() {
        assertThat(MetricRules.isSqlKey(0)).isTrue();
        assertThat(MetricRules.isSqlKey(3)).isTrue();
        assertThat(MetricRules.isSqlKey(9)).isTrue();
        assertThat(MetricRules.isSqlKey(1)).isFalse();
        assertThat(MetricRules.isSqlKey(8)).isFalse();
        assertThat(MetricRules.notAMajorVersion())
                .isEqualTo("not a PostgreSQL major version (9 to 99), nor 0 (pgbouncer) or 3 (pgpool)");
    }

    @Test
    void databasePatternsOnAKindThatDoesNotSelectDatabasesNameTheKindThatDoes() {
        Source source = new Source("s", "host=db", SourceKind.fromLabel("pgbouncer"), null, true, null, Map.of(),
                null, null, null, false, "^app", null);

        assertThat(SourceRules.check(source, ConfigSnapshot.empty()))
                .contains(new FieldProblem("includePattern", "database name patterns are only used by sources of kind"
                        + " 'postgres-continuous-discovery'; leave it out"));
    }
}
