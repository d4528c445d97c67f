package io.pgharvest.pgwatch;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * Imports the pgwatch files named by {@code pgharvest.import.metrics} and
 * {@code pgharvest.import.sources} once the application has started. A file that does not parse
 * or an invalid item stops start-up with the problems listed; nothing is changed then. Notices
 * (unknown fields and the like) are logged as warnings.
 */
@Component
class StartupImport implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(StartupImport.class);
    private static final String CONFIG_DATABASE = "pgharvest.import.config-database";

    private final ImportProperties properties;
    private final PgwatchImporter importer;

    StartupImport(ImportProperties properties, PgwatchImporter importer) {
        this.properties = properties;
        this.importer = importer;
    }

    @Override
    public void run(ApplicationArguments args) {
        List<Path> locations = new ArrayList<>();
        if (properties.metrics() != null) {
            locations.add(properties.metrics());
        }
        if (properties.sources() != null) {
            locations.add(properties.sources());
        }
        if (!locations.isEmpty()) {
            report(locations.toString(), () -> importer.importFiles(locations, properties.keepBuiltIns()));
        }
        if (properties.configDatabase() != null) {
            report(CONFIG_DATABASE, () -> importer.importConfigDatabase(CONFIG_DATABASE, properties.configDatabase(),
                    properties.keepBuiltIns()));
        }
    }

    private static void report(String what, java.util.function.Supplier<ImportReport> importing) {
        ImportReport report;
        try {
            report = importing.get();
        } catch (ImportRejectedException e) {
            e.notices().forEach(notice -> log.warn("pgwatch import: {}", notice));
            throw e;
        }
        report.notices().forEach(notice -> log.warn("pgwatch import: {}", notice));
        log.info("pgwatch import of {}: {} created, {} replaced, {} overridden, {} unchanged (store index {})",
                what, report.created(), report.replaced(), report.overridden(), report.unchanged(), report.index());
    }
}
