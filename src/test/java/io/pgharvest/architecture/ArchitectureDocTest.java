package io.pgharvest.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * docs/architecture.md's package table states the code: every package of src/main, its layer,
 * its number of classes and the pgharvest packages it imports, read here from the compiled
 * classes. A package, a layer, a count or an import that differs fails, with the table as the code
 * has it in the message. {@link #aDriftedTableFails} shows that each kind of drift is caught.
 */
@Tag("fast")
class ArchitectureDocTest {

    private static final String ROOT = "io.pgharvest";
    private static final Path DOC = Path.of("docs", "architecture.md");

    private static ArchitectureDoc code;
    private static String markdown;

    @BeforeAll
    static void readCodeAndDoc() throws IOException {
        code = ArchitectureDoc.read(ProductionClasses.get(), ROOT);
        markdown = Files.readString(DOC);
    }

    @Test
    void thePackageTableStatesTheCode() {
        assertThat(ArchitectureDoc.parse(markdown).differencesFrom(code))
                .as("docs/architecture.md differs from the code; the table as the code has it:%n%s", code.table())
                .isEmpty();
    }

    @Test
    void aDriftedTableFails() {
        ArchitectureDoc doc = ArchitectureDoc.parse(markdown);
        assertThat(doc.rows()).containsKeys("reaper", "kind", "sink");
        ArchitectureDoc.Row reaper = doc.rows().get("reaper");
        ArchitectureDoc.Row kind = doc.rows().get("kind");
        String firstImport = reaper.imports().iterator().next();
        String drifted = markdown
                .replace(rowOf(reaper), rowOf(new ArchitectureDoc.Row("reaper", reaper.layer(), reaper.classes() + 1,
                        without(reaper.imports(), firstImport))))
                .replace(rowOf(kind), rowOf(new ArchitectureDoc.Row("kind", kind.layer() + 1, kind.classes(),
                        kind.imports())))
                .replace(rowOf(doc.rows().get("sink")), "")
                + "\n| `gone` | 0 | 3 | nothing |\n";

        assertThat(ArchitectureDoc.parse(drifted).differencesFrom(code)).containsExactlyInAnyOrder(
                "package sink is in the code but not in the table",
                "package gone is in the table but not in the code",
                "package kind: layer " + (kind.layer() + 1) + " in the table, " + kind.layer()
                        + " in the code (PackageRules.LAYERS)",
                "package reaper: " + (reaper.classes() + 1) + " classes in the table, " + reaper.classes()
                        + " in the code",
                "package reaper imports [" + firstImport + "], which the table does not say");
    }

    private static Set<String> without(Set<String> set, String element) {
        var copy = new TreeSet<>(set);
        copy.remove(element);
        return copy;
    }

    private static String rowOf(ArchitectureDoc.Row row) {
        String table = new ArchitectureDoc(Map.of(row.name(), row)).table();
        return table.substring(table.indexOf("\n|---|---|---|---|\n") + "\n|---|---|---|---|\n".length()).strip();
    }
}
