package io.pgharvest.store.choice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.config.DataDirectory;
import io.pgharvest.config.HarvestProperties;
import io.pgharvest.store.ConfigStore;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which store a process opens: the files unless {@code pgharvest.store.url} names a database. */
@Tag("fast")
class StoreConfigurationTest {

    @TempDir
    Path dataDir;

    @Test
    void withoutAUrlTheStoreIsTheDataDirectorysFiles() {
        ConfigStore store = new StoreConfiguration().configStore(new StoreProperties("  ", Duration.ofMillis(500)),
                directory());

        assertThat(store.getClass().getPackageName()).isEqualTo("io.pgharvest.store.file");
        assertThat(store.snapshot().metrics()).isNotEmpty();
        assertThat(store.snapshot().sources()).isEmpty();
    }

    @Test
    void aUrlOpensTheConfigurationDatabaseAndAnUnusableOneIsRefusedNamingTheSetting() {
        assertThatThrownBy(() -> new StoreConfiguration().configStore(
                new StoreProperties("host=127.0.0.1 dbname=config", Duration.ofMillis(500)), directory()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pgharvest.store.url").hasMessageContaining("postgresql:// URI");
    }

    private DataDirectory directory() {
        return new DataDirectory(new HarvestProperties(dataDir, new HarvestProperties.Api(null), Duration.ofSeconds(5)));
    }
}
