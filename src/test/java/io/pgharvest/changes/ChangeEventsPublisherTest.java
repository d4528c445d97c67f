package io.pgharvest.changes;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.kind.ResultSetMapper;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.testsupport.RecordingPublisher;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Table, index, function and configuration changes come out as pgwatch's *_changes measurements,
 * detected from the built-in *_hashes metrics read from a real server before and after DDL.
 */
class ChangeEventsPublisherTest {

    private static final TestPostgres PG = TestPostgres.shared();
    private static final String TABLE_HASHES = """
            select (quote_ident(n.nspname) || '.' || quote_ident(c.relname))::text as tag_table,
              md5(string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' order by a.attnum)) as md5
            from pg_class c join pg_namespace n on n.oid = c.relnamespace
            join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
            where c.relkind = 'r' and n.nspname = 'public' group by 1 order by 1
            """;
    private static final String SPROC_HASHES = """
            select p.oid::text as tag_oid, (quote_ident(n.nspname) || '.' || quote_ident(p.proname))::text as tag_sproc,
              md5(p.prosrc) as md5
            from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public' order by 2
            """;

    private final RecordingPublisher sinks = new RecordingPublisher();
    private final ChangeEventsPublisher publisher = new ChangeEventsPublisher(sinks);

    @Test
    void ddlBetweenTwoReadsBecomesCreateAlterAndDropEventsAndTheHashesAreNotStored() throws Exception {
        String db = "changes_" + Long.toHexString(System.nanoTime());
        PG.createDatabase(db);
        try (Connection c = PG.connect(db); Statement s = c.createStatement()) {
            s.execute("create table kept (id int); create table altered (id int); create table dropped (id int)");
            s.execute("create function f() returns int language sql as 'select 1'");
            read(s, Instant.now());
            assertThat(sinks.all()).extracting(Measurement::metric).containsOnly("other");

            s.execute("alter table altered add column note text; drop table dropped; create table created (id int)");
            s.execute("create or replace function f() returns int language sql as 'select 2'");
            read(s, Instant.now());
        }

        List<Measurement> tables = sinks.of("src", "table_changes");
        assertThat(tables).singleElement().satisfies(m -> assertThat(m.rows())
                .extracting(r -> r.tags().get("table") + " " + r.values().get("event"))
                .containsExactlyInAnyOrder("public.altered alter", "public.created create", "public.dropped drop"));
        assertThat(sinks.of("src", "sproc_changes")).singleElement().satisfies(m -> assertThat(m.rows())
                .extracting(r -> r.tags().get("sproc") + " " + r.values().get("event"))
                .containsExactly("public.f alter"));
        assertThat(sinks.all()).extracting(Measurement::metric).doesNotContain("table_hashes", "sproc_hashes");
        assertThat(sinks.all()).extracting(Measurement::metric).filteredOn("other"::equals).hasSize(2);
    }

    @Test
    void aChangedSettingIsReportedWithItsNewValueAndANewOneAsCreated() {
        publisher.publish(List.of(settings(Map.of("work_mem", "4MB"))));
        publisher.publish(List.of(settings(Map.of("work_mem", "8MB", "new_setting", "on"))));

        assertThat(sinks.of("src", "configuration_changes")).singleElement().satisfies(m -> assertThat(m.rows())
                .extracting(r -> r.tags().get("setting") + "=" + r.values().get("value") + " " + r.values().get("event"))
                .containsExactlyInAnyOrder("work_mem=8MB alter", "new_setting=on create"));
    }

    /** The common case, a read repeating the last one row for row, reports nothing; any change still shows. */
    @Test
    void aRepeatedReadReportsNothingAndAChangeInItStillShows() {
        var first = List.of(setting("a", "1"), setting("b", "2"), setting("c", "3"));
        publisher.publish(List.of(settingsRead(first)));
        publisher.publish(List.of(settingsRead(first)));
        publisher.publish(List.of(settingsRead(List.of(setting("c", "3"), setting("a", "1"), setting("b", "2")))));
        assertThat(sinks.of("src", "configuration_changes")).as("same read, also in another order").isEmpty();

        publisher.publish(List.of(settingsRead(List.of(setting("a", "1"), setting("b", "5"), setting("c", "3")))));
        publisher.publish(List.of(settingsRead(List.of(setting("a", "1"), setting("b", "5"), setting("d", "3")))));

        assertThat(sinks.of("src", "configuration_changes")).extracting(m -> m.rows().stream()
                .map(r -> r.tags().get("setting") + "=" + r.values().get("value") + " " + r.values().get("event"))
                .sorted().toList())
                .containsExactly(List.of("b=5 alter"), List.of("d=3 create"));
    }

    /**
     * An object is its tags as a set: equal tags in another order are the same object, the same
     * values under swapped tag names are another one (the detector keeps digests, not the tags).
     */
    @Test
    void tagsInAnotherOrderAreTheSameObjectAndSwappedTagValuesAreAnother() {
        var ab = new java.util.LinkedHashMap<String, String>();
        ab.put("schema", "s1");
        ab.put("table", "t1");
        var ba = new java.util.LinkedHashMap<String, String>();
        ba.put("table", "t1");
        ba.put("schema", "s1");
        publisher.publish(List.of(tablesRead(List.of(new Measurement.Row(Map.of("md5", "h1"), ab)))));
        publisher.publish(List.of(tablesRead(List.of(new Measurement.Row(Map.of("md5", "h1"), ba)))));
        assertThat(sinks.of("src", "table_changes")).as("same tags in another order").isEmpty();

        publisher.publish(List.of(tablesRead(List.of(
                new Measurement.Row(Map.of("md5", "h1"), Map.of("schema", "t1", "table", "s1"))))));

        assertThat(sinks.of("src", "table_changes")).singleElement().satisfies(m -> assertThat(m.rows())
                .extracting(r -> r.tags().get("schema") + "." + r.tags().get("table") + " " + r.values().get("event"))
                .containsExactlyInAnyOrder("t1.s1 create", "s1.t1 drop"));
    }

    private static Measurement tablesRead(List<Measurement.Row> rows) {
        return new Measurement("src", "table_hashes", Instant.now(), rows, Map.of());
    }

    private static Measurement.Row setting(String name, String value) {
        return new Measurement.Row(Map.of("value", value), Map.of("setting", name));
    }

    private static Measurement settingsRead(List<Measurement.Row> rows) {
        return new Measurement("src", "configuration_hashes", Instant.now(), rows, Map.of());
    }

    @Test
    void theSinksPrepareTheChangeTablesOfSelectedHashMetricsInsteadOfTheHashTablesAndObjectChangesWithDbStats() {
        MetricCatalog selection = new MetricCatalog() {
            @Override
            public java.util.Optional<io.pgharvest.model.MetricDefinition> byStorageName(String storageName) {
                return java.util.Optional.empty();
            }

            @Override
            public java.util.Set<String> selectedStorageNames() {
                return java.util.Set.of("db_stats", "table_hashes", "configuration_hashes", "privilege_changes");
            }
        };

        assertThat(new ChangeTablesCatalog(selection).selectedStorageNames())
                .containsExactlyInAnyOrder("db_stats", "object_changes", "table_changes", "configuration_changes",
                        "privilege_changes");
    }

    private Measurement settings(Map<String, String> values) {
        var rows = new ArrayList<Measurement.Row>();
        values.forEach((name, value) -> rows.add(new Measurement.Row(Map.of("value", value), Map.of("setting", name))));
        return new Measurement("src", "configuration_hashes", Instant.now(), rows, Map.of());
    }

    private void read(Statement s, Instant at) throws Exception {
        publisher.publish(List.of(
                new Measurement("src", "table_hashes", at, rows(s, TABLE_HASHES), Map.of()),
                new Measurement("src", "other", at, List.of(new Measurement.Row(Map.of("x", 1), null)), Map.of()),
                new Measurement("src", "sproc_hashes", at, rows(s, SPROC_HASHES), Map.of())));
    }

    /** Rows as the engine hands them on: tag_ columns become tags without the prefix. */
    private static List<Measurement.Row> rows(Statement s, String sql) throws Exception {
        try (ResultSet rs = s.executeQuery(sql)) {
            return ResultSetMapper.read(rs).rows();
        }
    }
}
