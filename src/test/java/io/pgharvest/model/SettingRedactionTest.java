package io.pgharvest.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class SettingRedactionTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final String CONNINFO = "host=primary user=replicator password=repl-secret";
    private static final String MASKED_CONNINFO = "host=primary user=replicator password=********";

    @Test
    void namesEndingInCommandPasswordPassphraseOrSecretHoldCommandsOrSecrets() {
        assertThat(List.of("archive_command", "restore_command", "archive_cleanup_command", "recovery_end_command",
                "ssl_passphrase_command", "myext.api_password", "myext.secret")).allMatch(SettingRedaction::holdsCommandOrSecret);
        assertThat(List.of("password_encryption", "ssl_passphrase_command_supports_reload", "archive_mode",
                "work_mem", "primary_conninfo")).noneMatch(SettingRedaction::holdsCommandOrSecret);
        assertThat(SettingRedaction.holdsConnection("primary_conninfo")).isTrue();
    }

    @Test
    void aRowPerSettingWithATagHasItsValueColumnsRedactedAndItsDescriptionKept() {
        var columns = new RowValues.Columns(List.of("setting", "unit", "source"));
        String[] tagNames = {"setting"};
        var conninfo = new Measurement.Row(new RowValues(columns, new Object[] {CONNINFO, "", "configuration file"}),
                RowTags.sharingNames(tagNames, new String[] {"primary_conninfo"}));
        var archive = new Measurement.Row(new RowValues(columns, new Object[] {"aws s3 cp --secret x %p", "", "file"}),
                RowTags.sharingNames(tagNames, new String[] {"archive_command"}));
        var workMem = new Measurement.Row(new RowValues(columns, new Object[] {"4096", "kB", "default"}),
                RowTags.sharingNames(tagNames, new String[] {"work_mem"}));
        var m = new Measurement("src", "settings", NOW, List.of(conninfo, archive, workMem), Map.of());

        Measurement masked = SettingRedaction.redact(m, false);
        assertThat(masked.rows().get(0).values()).containsEntry("setting", MASKED_CONNINFO)
                .containsEntry("source", "configuration file");
        assertThat(masked.rows().get(0).tags()).containsEntry("setting", "primary_conninfo");
        assertThat(masked.rows().get(1).values()).containsEntry("setting", "********");
        assertThat(masked.rows().get(2)).isSameAs(workMem);

        Measurement kept = SettingRedaction.redact(m, true);
        assertThat(kept.rows().get(0).values()).containsEntry("setting", MASKED_CONNINFO);
        assertThat(kept.rows().get(1).values()).containsEntry("setting", "aws s3 cp --secret x %p");
    }

    @Test
    void pgwatchShapesAreCoveredNameAndSettingColumnsAndWideRows() {
        var rows = new LinkedHashMap<String, Object>();
        rows.put("name", "restore_command");
        rows.put("setting", "curl -u u:pw %f");
        var byName = new Measurement.Row(rows, Map.of());
        var wide = new Measurement.Row(new RowValues(new RowValues.Columns(List.of("primary_conninfo", "archive_command",
                "work_mem")), new Object[] {CONNINFO, "cp %p /x", "4MB"}), Map.of());
        var tagged = new Measurement.Row(Map.of("value", "x"), Map.of("ssl_passphrase_command", "echo key"));
        var m = new Measurement("src", "pgw", NOW, List.of(byName, wide, tagged), Map.of());

        Measurement masked = SettingRedaction.redact(m, false);
        assertThat(masked.rows().get(0).values()).containsEntry("name", "restore_command").containsEntry("setting", "********");
        assertThat(masked.rows().get(1).values()).containsEntry("primary_conninfo", MASKED_CONNINFO)
                .containsEntry("archive_command", "********").containsEntry("work_mem", "4MB");
        assertThat(masked.rows().get(2).tags()).containsEntry("ssl_passphrase_command", "********");
    }

    @Test
    void anExtensionsSettingHoldingConnectionTextLosesItsPassword() {
        var row = new Measurement.Row(Map.of("value", "postgresql://app:pw@db/app"), Map.of("setting", "myext.dsn"));
        Measurement masked = SettingRedaction.redact(new Measurement("src", "cfg", NOW, List.of(row), Map.of()), false);
        assertThat(masked.rows().get(0).values()).containsEntry("value", "postgresql://app:********@db/app");
    }

    @Test
    void measurementsWithoutSettingsAreReturnedAsTheyAre() {
        var row = new Measurement.Row(new RowValues(new RowValues.Columns(List.of("datname", "numbackends")),
                new Object[] {"password=secret", 3L}), Map.of("datname", "x"));
        var m = new Measurement("src", "db_stats", NOW, List.of(row), Map.of());
        List<Measurement> batch = List.of(m);
        assertThat(SettingRedaction.redact(batch, false)).isSameAs(batch);
    }
}
