package io.pgharvest.pgwatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.ApiTestBase;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** POST /api/v1/import over real HTTP, with pgwatch-format YAML bodies. */
class ImportApiTest extends ApiTestBase {

    private static final String YAML = "application/yaml";
    /** Read through Spring's Environment, which sees system properties as they are set. */
    private static final String PASSWORD_VARIABLE = "IMPORT_TEST_DB_PASSWORD";

    @AfterEach
    void forgetVariable() {
        System.clearProperty(PASSWORD_VARIABLE);
    }

    private ApiClient.Response post(String path, String yaml) {
        return api().send("POST", path, YAML, yaml);
    }

    /** {@link #METRICS_AND_SOURCES} with item names of the test's own. */
    private static String pgwatchYaml(String suffix) {
        return METRICS_AND_SOURCES.replace("imp_orders", "imp_orders" + suffix)
                .replace("imp_preset", "imp_preset" + suffix)
                .replace("imp_db_age", "imp_db_age" + suffix);
    }

    private static final String METRICS_AND_SOURCES = """
            metrics:
              imp_db_age:
                description: Age of the database's frozen xid.
                sqls:
                  14: select age(datfrozenxid)::int8 as xid_age from pg_database where datname = current_database()
                gauges: ['*']
                is_instance_level: false
            presets:
              imp_preset:
                description: imported preset
                metrics:
                  imp_db_age: 60
                  db_stats: 30
            ---
            - name: imp_orders
              kind: postgres
              conn_str: postgresql://monitor:s3cret-pw@db1.example.com:5432/orders
              preset_metrics: imp_preset
              custom_metrics:
                wal: 120
              custom_tags:
                env: prod
              is_enabled: true
              group: shop
            """;

    @Test
    void importsSourcesWithTheirPresetAndMetrics() {
        var response = post("/api/v1/import", pgwatchYaml("_1"));

        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        JsonNode report = response.json();
        assertThat(report.get("dryRun").asBoolean()).isFalse();
        assertThat(report.get("created").asInt()).isEqualTo(3);
        assertThat(report.get("index").asLong()).isEqualTo(response.index());
        JsonNode source = api().get("/api/v1/sources/imp_orders_1").json();
        assertThat(source.get("connStr").asString())
                .isEqualTo("postgresql://monitor:********@db1.example.com:5432/orders");
        assertThat(source.get("preset").asString()).isEqualTo("imp_preset_1");
        assertThat(source.get("metrics").get("wal").asInt()).isEqualTo(120);
        assertThat(source.get("group").asString()).isEqualTo("shop");
        assertThat(api().get("/api/v1/presets/imp_preset_1").json().get("metrics").get("imp_db_age_1").asInt())
                .isEqualTo(60);
        JsonNode metric = api().get("/api/v1/metrics/imp_db_age_1").json();
        assertThat(metric.get("builtIn").asBoolean()).isFalse();
        // It reads only pg_database: the import stored the instance-wide variant it derived, and said so.
        assertThat(metric.get("instanceSqls").get("14").asString()).contains("fan_out_dbname")
                .contains("cross join lateral");
        assertThat(report.get("notices").valueStream().map(n -> n.get("field").asString() + ": "
                + n.get("message").asString()).toList())
                .contains("metrics.imp_db_age_1.sqls: fans out: an instance-wide variant was derived, read once per"
                        + " instance for all its collected databases");
    }

    @Test
    void anEnvironmentReferenceThroughTheApiIsRefusedAndNeverRead() throws Exception {
        System.setProperty(PASSWORD_VARIABLE, "from-the-environment-4711");

        var refused = post("/api/v1/import", pgwatchYaml("_2").replace("s3cret-pw", "${" + PASSWORD_VARIABLE + "}"));

        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.errorFields()).containsExactly("sources[imp_orders_2].conn_str");
        assertThat(refused.body()).contains("only in files imported at start-up").doesNotContain("from-the-environment");
        assertThat(api().get("/api/v1/sources/imp_orders_2").status()).isEqualTo(404);
        assertThat(Files.readString(DATA_DIR.resolve("sources.yaml"))).doesNotContain("from-the-environment");
    }

    @Test
    void importingTheSameYamlAgainChangesNothing() {
        String yaml = pgwatchYaml("_3");
        long first = post("/api/v1/import", yaml).index();

        var again = post("/api/v1/import", yaml);

        assertThat(again.status()).isEqualTo(200);
        assertThat(again.json().get("unchanged").asInt()).isEqualTo(3);
        assertThat(again.json().get("created").asInt()).isZero();
        assertThat(again.index()).isEqualTo(first);
    }

    @Test
    void aDryRunReportsWhatWouldChangeAndChangesNothing() {
        long before = api().get("/api/v1/sources").index();

        var response = post("/api/v1/import?dryRun=true", pgwatchYaml("_dry"));

        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        JsonNode report = response.json();
        assertThat(report.get("dryRun").asBoolean()).isTrue();
        assertThat(report.get("changes").valueStream().map(c -> c.get("type").asString() + " "
                + c.get("name").asString() + " " + c.get("action").asString()).toList())
                .containsExactlyInAnyOrder("metric imp_db_age_dry created", "preset imp_preset_dry created",
                        "source imp_orders_dry created");
        assertThat(api().get("/api/v1/sources/imp_orders_dry").status()).isEqualTo(404);
        assertThat(api().get("/api/v1/presets/imp_preset_dry").status()).isEqualTo(404);
        assertThat(api().get("/api/v1/sources").index()).isEqualTo(before);
    }

    @Test
    void oneInvalidSourceRejectsTheWholeImportNamingEachFieldInPgwatchSpelling() {
        var response = post("/api/v1/import", """
                metrics:
                  imp_rejected_metric:
                    sqls:
                      14: select 1 as one
                      8: select 1 as one
                ---
                - name: imp_valid_but_rejected
                  conn_str: postgresql://monitor@db1.example.com/orders
                  is_enabled: true
                - name: imp_invalid
                  conn_str: postgresql://monitor@db1.example.com/orders
                  preset_metrics: no_such_preset
                  custom_metrics:
                    no_such_metric: 60
                  is_enabled: true
                """);

        assertThat(response.status()).as(response.toString()).isEqualTo(400);
        assertThat(response.json().get("type").asString()).isEqualTo("https://pgharvest.io/problems/invalid-input");
        assertThat(response.errorFields()).containsExactlyInAnyOrder(
                "sources[imp_invalid].preset_metrics", "sources[imp_invalid].custom_metrics.no_such_metric");
        // a metric pgharvest cannot run as written is not an error: the key is dropped with a notice
        assertThat(response.body()).contains("metrics[imp_rejected_metric].sqls.8");
        assertThat(api().get("/api/v1/sources/imp_valid_but_rejected").status()).isEqualTo(404);
        assertThat(api().get("/api/v1/metrics/imp_rejected_metric").status()).isEqualTo(404);
    }

    @Test
    void unknownAndUnsupportedFieldsAreReportedWithTheirLine() {
        var response = post("/api/v1/import", """
                - name: imp_notices
                  conn_str: postgresql://monitor@db1.example.com/orders
                  is_superuser: true
                  host_config:
                    dcs_type: etcd
                  stmt_timeout: 5
                """);

        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        List<String> notices = response.json().get("notices").valueStream()
                .map(n -> n.get("location").asString() + " | " + n.get("field").asString() + " | "
                        + n.get("message").asString())
                .toList();
        assertThat(notices).anySatisfy(n -> assertThat(n).startsWith("request body line 3 | [0].is_superuser | not used"));
        assertThat(notices).anySatisfy(n -> assertThat(n).startsWith("request body line 4 | [0].host_config | not supported"));
        assertThat(notices).anySatisfy(n -> assertThat(n).startsWith("request body line 6 | [0].stmt_timeout | unknown field"));
        assertThat(notices).anySatisfy(n -> assertThat(n).contains("[0].is_enabled | missing: imported as enabled"));
        assertThat(api().get("/api/v1/sources/imp_notices").json().get("enabled").asBoolean()).isTrue();
    }

    @Test
    void aReferenceInTheConnectionStringIsReportedWithoutItsName() {
        var response = post("/api/v1/import", """
                - name: imp_unset
                  conn_str: postgresql://monitor:$IMP_UNSET_SECRET_9@db1.example.com/orders
                  is_enabled: true
                """);

        assertThat(response.status()).as(response.toString()).isEqualTo(400);
        assertThat(response.errorFields()).containsExactly("sources[imp_unset].conn_str");
        assertThat(response.body()).doesNotContain("IMP_UNSET_SECRET_9");
        assertThat(api().get("/api/v1/sources/imp_unset").status()).isEqualTo(404);
    }

    @Test
    void keepBuiltInsLeavesBuiltInMetricsAloneWhileTheDefaultOverridesThem() {
        String yaml = """
                metrics:
                  bgwriter:
                    description: pgwatch's own bgwriter
                    sqls:
                      14: select 1 as buffers_clean
                """;

        var kept = post("/api/v1/import?keepBuiltIns=true", yaml);
        assertThat(kept.status()).as(kept.toString()).isEqualTo(200);
        assertThat(kept.json().get("changes").size()).isZero();
        assertThat(kept.json().get("notices").get(0).get("field").asString()).isEqualTo("metrics[bgwriter]");
        assertThat(api().get("/api/v1/metrics/bgwriter").json().get("overridden").asBoolean()).isFalse();

        var overridden = post("/api/v1/import", yaml);
        assertThat(overridden.status()).isEqualTo(200);
        assertThat(overridden.json().get("overridden").asInt()).isEqualTo(1);
        assertThat(api().get("/api/v1/metrics/bgwriter").json().get("description").asString())
                .isEqualTo("pgwatch's own bgwriter");
        assertThat(api().delete("/api/v1/metrics/bgwriter").status()).isEqualTo(204);
    }

    @Test
    void yamlThatDoesNotParseAnswers400WithTheLine() {
        var response = post("/api/v1/import", """
                - name: imp_broken
                  conn_str: [unclosed
                """);

        assertThat(response.status()).isEqualTo(400);
        assertThat(response.json().get("type").asString()).isEqualTo("https://pgharvest.io/problems/malformed-request");
        assertThat(response.json().get("errors").get(0).get("message").asString()).contains("line");
    }

    @Test
    void aFractionalIntervalIsAnErrorNotATruncation() {
        var response = post("/api/v1/import", """
                - name: imp_fraction
                  conn_str: postgresql://monitor@db1.example.com/orders
                  custom_metrics:
                    db_stats: 0.5
                """);

        assertThat(response.status()).isEqualTo(400);
        assertThat(response.json().get("errors").get(0).get("message").asString())
                .contains("line 4").contains("custom_metrics.db_stats");
        assertThat(api().get("/api/v1/sources/imp_fraction").status()).isEqualTo(404);
    }

    @Test
    void anEmptyBodyImportsNothingAndSaysWhy() {
        var response = post("/api/v1/import", "# nothing here\n");

        assertThat(response.status()).isEqualTo(400);
        assertThat(response.errorFields()).containsExactly("body");
    }

    @Test
    void theImportNeedsTheBearerToken() {
        var response = api().withToken(null).send("POST", "/api/v1/import", YAML, pgwatchYaml("_401"));

        assertThat(response.status()).isEqualTo(401);
    }
}
