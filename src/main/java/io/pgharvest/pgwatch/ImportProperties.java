package io.pgharvest.pgwatch;

import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * pgwatch configuration imported at every start-up, bound from {@code pgharvest.import.*}. The
 * import is all-or-nothing: an invalid item stops start-up and changes nothing. Items equal to
 * the stored ones are left alone, so importing the same files again is harmless; but an item
 * changed through the admin API since is replaced by the file's version again at the next start.
 * docs/pgwatch-import.md describes the mapping.
 *
 * @param metrics pgwatch {@code metrics.yaml}, or a folder of such files, to import; unset for none
 * @param sources pgwatch {@code sources.yaml}, or a folder of such files, to import; unset for none
 * @param keepBuiltIns when true, metrics and presets named like built-in ones are not imported
 *     (the built-ins stay); when false (the default) the imported definitions override them
 * @param configDatabase connection URI of a pgwatch configuration database (schema {@code pgwatch})
 *     whose sources, metrics and presets are imported, after the files; unset for none
 */
@ConfigurationProperties("pgharvest.import")
public record ImportProperties(Path metrics, Path sources, @DefaultValue("false") boolean keepBuiltIns,
        String configDatabase) {

    public ImportProperties {
        configDatabase = configDatabase == null || configDatabase.isBlank() ? null : configDatabase;
    }
}
