package io.pgharvest.store.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** docs/metrics.md is generated from the catalog; this keeps it from going stale. */
@Tag("fast")
class MetricsDocTest {

    @Test
    void docsMetricsMdDescribesTheCurrentCatalog() throws IOException {
        if (Boolean.getBoolean(MetricsDoc.WRITE_PROPERTY)) {
            MetricsDoc.write();
        }
        String expected = MetricsDoc.render(CatalogUnderTest.get());
        String actual = Files.exists(MetricsDoc.FILE) ? Files.readString(MetricsDoc.FILE, StandardCharsets.UTF_8) : "";

        assertThat(actual)
                .as(MetricsDoc.FILE + " is not current; regenerate it with: " + MetricsDoc.REGENERATE)
                .isEqualTo(expected);
    }

    @Test
    void theDocumentListsEveryMetricWithItsVersionsAndPresets() {
        String doc = MetricsDoc.render(CatalogUnderTest.get());

        assertThat(doc).contains("### stat_io").contains("- Versions: 16+")
                .contains("### checkpointer").contains("(own SQL from 17, 18)")
                .contains("`standard` (300 s)")
                .contains("### pgbouncer_pools");
        CatalogUnderTest.get().metrics().keySet().forEach(name -> assertThat(doc).contains("\n### " + name + "\n"));
    }
}
