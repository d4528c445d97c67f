package io.pgharvest.kind.pooler;

import static io.pgharvest.kind.pooler.PgbouncerCollectionTest.rowWhere;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.TestPgpool;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Sources of kind pgpool, end to end: registered through the admin API, collected from a real
 * pgpool-II (Debian's package pgpool2) that asks for SCRAM-SHA-256, and delivered to a JSON lines
 * sink as pgwatch's pgpool_stats (SHOW POOL_NODES) and pgpool_processes (SHOW POOL_PROCESSES).
 * Fails when pgpool is missing.
 */
class PgpoolCollectionTest {

    private static TestPgpool pgpool;

    @BeforeAll
    static void startPgpool() {
        pgpool = TestPgpool.start(TestPostgres.shared());
    }

    @AfterAll
    static void stopPgpool() {
        if (pgpool != null) {
            pgpool.close();
        }
    }

    @Test
    void poolNodesAndProcessesReachTheSinkUnderPgwatchsNames(@TempDir Path dataDir) {
        try (PoolerHarvest harvest = PoolerHarvest.start(dataDir)) {
            harvest.addSource("pool", "pgpool", pgpool.connStr(TestPgpool.USER, TestPgpool.PASSWORD, "postgres"),
                    List.of("pgpool_stats", "pgpool_processes"));

            JsonNode nodes = harvest.awaitMeasurement("pool", "pgpool_stats");
            JsonNode node = rowWhere(nodes, "node_id", "0");
            assertThat(node.get("status").asString()).isEqualTo("up");
            assertThat(node.get("port").asString()).isEqualTo(Integer.toString(TestPostgres.shared().port()));
            JsonNode processes = harvest.awaitMeasurement("pool", "pgpool_processes");
            // pgharvest's own session is served by one of the children.
            assertThat(rowWhere(processes, "username", TestPgpool.USER).get("database").asString())
                    .isEqualTo("postgres");

            JsonNode status = harvest.awaitStatus("pool", s -> s.at("/runtime/state").asString().equals("connected"));
            assertThat(status.get("kind").asString()).isEqualTo("pgpool");
            assertThat(status.at("/runtime/serverVersion").asString()).startsWith("4.");
            JsonNode test = harvest.api().post("/api/v1/sources/pool/test", Map.of()).json();
            assertThat(test.get("reachable").asBoolean()).isTrue();
            assertThat(test.get("serverVersion").asString()).startsWith("4.");
            assertThat(harvest.api().post("/api/v1/sources", Map.of("name", "pool-preset", "kind", "pgpool",
                    "connStr", pgpool.connStr(TestPgpool.USER, TestPgpool.PASSWORD, "postgres"), "preset", "pgpool"))
                    .status()).isEqualTo(201);
        }
    }

    @Test
    void aWrongPasswordIsReportedInStatusAndConnectionTestWithoutTheSecret(@TempDir Path dataDir) {
        try (PoolerHarvest harvest = PoolerHarvest.start(dataDir)) {
            harvest.addSource("pool-wrong", "pgpool", pgpool.connStr(TestPgpool.USER, "Wrong-pool-pw-9", "postgres"),
                    List.of("pgpool_stats"));

            JsonNode wrong = harvest.awaitStatus("pool-wrong",
                    s -> !s.at("/runtime/lastConnectionError").isMissingNode()
                            && !s.at("/runtime/lastConnectionError").isNull());
            assertThat(wrong.at("/runtime/lastConnectionError").asString())
                    .contains("authentication").doesNotContain("Wrong-pool-pw-9");
            assertThat(wrong.at("/runtime/state").asString()).isNotEqualTo("connected");
            JsonNode test = harvest.api().post("/api/v1/sources/pool-wrong/test", Map.of()).json();
            assertThat(test.get("reachable").asBoolean()).isFalse();
            assertThat(test.get("error").asString()).doesNotContain("Wrong-pool-pw-9");
        }
    }
}
