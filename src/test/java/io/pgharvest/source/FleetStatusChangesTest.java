package io.pgharvest.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.ApiTestBase;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * GET /api/v1/status as changes and as pages on a real pgharvest: a console that holds the fleet
 * as of a change index is sent only what changed after it (a source that ticked, one whose entry
 * changed, a removed name), and the whole fleet comes a bounded page at a time. Other test
 * classes share this application and its sources, so each test looks only at its own names.
 */
class FleetStatusChangesTest extends ApiTestBase {

    @Test
    void theChangesFormSendsOnlyWhatChangedAfterTheIndexAndNamesRemovedSources() throws Exception {
        api().post("/api/v1/metrics", Map.of("name", "fleet_changes_ping", "sqls", Map.of("14", "select 1 as up_value"),
                "gauges", List.of("*")));
        for (int i = 0; i < 30; i++) {
            assertThat(api().post("/api/v1/sources", Map.of("name", "fchg-quiet-%02d".formatted(i),
                    "connStr", "postgresql://db/x", "enabled", false)).status()).isEqualTo(201);
        }
        assertThat(api().post("/api/v1/sources", Map.of("name", "fchg-ticking",
                "connStr", TestPostgres.shared().connStr("postgres"), "metrics", Map.of("fleet_changes_ping", 1)))
                .status()).isEqualTo(201);
        awaitWhole(fleet -> entry(fleet, "fchg-ticking") != null && !entry(fleet, "fchg-ticking")
                .get("lastTickStart").isNull());
        List<JsonNode> whole = walk("/api/v1/status?limit=1000");
        long held = whole.getFirst().get("changeIndex").asLong();
        assertThat(whole.getFirst().get("whole").asBoolean()).isTrue();

        // The ticking source ticks every second; the thirty disabled ones never change.
        JsonNode ticked = awaitChanges(held, changes -> names(changes.get("ticks")).contains("fchg-ticking"));
        assertThat(ticked.get("whole").asBoolean()).isFalse();
        assertThat(ticked.get("changeIndex").asLong()).isGreaterThan(held);
        assertThat(names(ticked.get("sources"))).noneMatch(name -> name.startsWith("fchg-"));
        assertThat(names(ticked.get("ticks"))).noneMatch(name -> name.startsWith("fchg-quiet"));
        assertThat(ticked.get("total").asInt()).isGreaterThanOrEqualTo(31);
        assertThat(ticked.get("counts").get("disabled").asInt()).isGreaterThanOrEqualTo(30);
        JsonNode tick = ticked.get("ticks").valueStream()
                .filter(t -> t.get("name").asString().equals("fchg-ticking")).findFirst().orElseThrow();
        assertThat(tick.get("lastTickStart").asString()).isNotBlank();
        assertThat(tick.propertyNames()).containsExactlyInAnyOrder("name", "lastTickStart", "lastTickDuration", "lastErrorAt");

        // An entry that changes beyond its tick travels whole; a removed source is named.
        held = ticked.get("changeIndex").asLong();
        api().put("/api/v1/sources/fchg-quiet-03", Map.of("connStr", "postgresql://db/x", "enabled", false,
                "group", "moved"));
        assertThat(api().delete("/api/v1/sources/fchg-quiet-07").status()).isEqualTo(204);
        JsonNode changed = awaitChanges(held, changes -> names(changes.get("sources")).contains("fchg-quiet-03"));
        assertThat(changed.get("whole").asBoolean()).isFalse();
        assertThat(names(changed.get("sources"))).filteredOn(name -> name.startsWith("fchg-quiet"))
                .containsExactly("fchg-quiet-03");
        assertThat(entry(changed, "fchg-quiet-03").get("group").asString()).isEqualTo("moved");
        assertThat(changed.get("removed").valueStream().map(JsonNode::asString).toList()).contains("fchg-quiet-07");
        assertThat(names(changed.get("ticks"))).noneMatch(name -> name.startsWith("fchg-quiet"));

        // The blocking form still parks on the status notifier's index and then answers the changes.
        long statusIndex = ok("/api/v1/status?limit=1").index();
        var waited = ok("/api/v1/status?since=" + changed.get("changeIndex").asLong() + "&index=" + statusIndex
                + "&wait=300ms").json();
        assertThat(waited.get("whole").asBoolean()).isFalse();
        assertThat(names(waited.get("sources"))).noneMatch(name -> name.startsWith("fchg-quiet"));
        assertThat(waited.get("removed").valueStream().map(JsonNode::asString).toList()).doesNotContain("fchg-quiet-07");
    }

    @Test
    void anIndexTheLedgerCannotAnswerGetsTheWholeFleetFlaggedSo() {
        api().post("/api/v1/sources", Map.of("name", "fchg-old-index", "connStr", "postgresql://db/x", "enabled", false));
        JsonNode now = api().get("/api/v1/status?limit=1").json();
        long index = now.get("changeIndex").asLong();

        for (long since : new long[] {0, index + 1_000_000}) {
            JsonNode answer = api().get("/api/v1/status?limit=1000&since=" + since).json();
            assertThat(answer.get("whole").asBoolean()).as("since=%d", since).isTrue();
            assertThat(answer.get("sources").size()).isEqualTo(Math.min(1000, answer.get("total").asInt()));
            assertThat(answer.get("removed").size()).isZero();
        }
    }

    @Test
    void pagesWalkAThousandSourcesInNameOrderWithoutDuplicatesOrGaps() {
        var yaml = new StringBuilder();
        IntStream.range(0, 1000).forEach(i -> yaml.append("- name: fpage-%04d\n  conn_str: postgresql://db/x\n"
                .formatted(i)).append("  is_enabled: false\n  preset_metrics: basic\n"));
        assertThat(api().send("POST", "/api/v1/import", "application/yaml", yaml.toString()).status()).isLessThan(300);

        JsonNode first = api().get("/api/v1/status").json();
        assertThat(first.get("sources").size()).as("the default page").isEqualTo(FleetQuery.DEFAULT_LIMIT);
        assertThat(first.get("next").asString()).contains("after=").contains("limit=500");
        assertThat(first.get("total").asInt()).isGreaterThanOrEqualTo(1000);

        List<JsonNode> pages = walk("/api/v1/status?limit=97");
        var seen = new ArrayList<String>();
        for (JsonNode page : pages) {
            assertThat(page.get("sources").size()).isLessThanOrEqualTo(97);
            assertThat(page.get("whole").asBoolean()).isTrue();
            seen.addAll(names(page.get("sources")));
        }
        assertThat(seen).isSorted().doesNotHaveDuplicates();
        assertThat(seen).filteredOn(name -> name.startsWith("fpage-"))
                .containsExactlyElementsOf(IntStream.range(0, 1000).mapToObj("fpage-%04d"::formatted).toList());
        assertThat(pages.getLast().get("next").isNull()).isTrue();
        assertThat(api().get("/api/v1/status?limit=1000").json().get("sources").size())
                .isEqualTo(Math.min(1000, first.get("total").asInt()));
    }

    @Test
    void badParametersAreAllNamedInOneProblemAndChangeNothing() {
        var bad = api().get("/api/v1/status?since=-4&after=no%20such%20name!&limit=1001&index=x&wait=forever");

        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.header("Content-Type")).contains("application/problem+json");
        assertThat(bad.errorFields()).containsExactlyInAnyOrder("since", "after", "limit", "index", "wait");
        assertThat(api().get("/api/v1/status?limit=0").errorFields()).containsExactly("limit");
        assertThat(api().get("/api/v1/status?since=soon").errorFields()).containsExactly("since");
    }

    private ApiClient.Response ok(String path) {
        var response = api().get(path);
        assertThat(response.status()).as("GET %s: %s", path, response.body()).isEqualTo(200);
        return response;
    }

    /** Every page of a walk that starts at {@code path}, following next. */
    private List<JsonNode> walk(String path) {
        var pages = new ArrayList<JsonNode>();
        String next = path;
        while (next != null) {
            JsonNode page = ok(next).json();
            pages.add(page);
            next = page.get("next").isNull() ? null : page.get("next").asString();
            assertThat(pages.size()).as("pages").isLessThan(100);
        }
        return pages;
    }

    private void awaitWhole(Predicate<JsonNode> condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            JsonNode merged = merge(walk("/api/v1/status?limit=1000"));
            if (condition.test(merged)) {
                return;
            }
            assertThat(System.nanoTime()).as("waited 60 s for the fleet").isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    /** The changes after {@code since} (every page of them, as one) once they satisfy {@code condition}. */
    private JsonNode awaitChanges(long since, Predicate<JsonNode> condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            JsonNode changes = merge(walk("/api/v1/status?limit=1000&since=" + since));
            if (condition.test(changes)) {
                return changes;
            }
            assertThat(System.nanoTime()).as("waited 60 s for a change").isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    /** The first page with the sources and ticks of all pages. */
    private static JsonNode merge(List<JsonNode> pages) {
        var merged = (tools.jackson.databind.node.ObjectNode) pages.getFirst().deepCopy();
        var sources = merged.putArray("sources");
        var ticks = merged.putArray("ticks");
        pages.forEach(page -> {
            page.get("sources").forEach(sources::add);
            page.get("ticks").forEach(ticks::add);
        });
        return merged;
    }

    private static JsonNode entry(JsonNode fleet, String name) {
        return fleet.get("sources").valueStream().filter(e -> e.get("name").asString().equals(name))
                .findFirst().orElse(null);
    }

    private static List<String> names(JsonNode entries) {
        return entries.valueStream().map(e -> e.get("name").asString()).toList();
    }
}
