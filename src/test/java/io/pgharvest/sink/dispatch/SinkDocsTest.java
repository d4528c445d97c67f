package io.pgharvest.sink.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.sink.SinkPlugin;
import io.pgharvest.support.plugin.PluginOption;
import io.pgharvest.support.plugin.PluginRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * docs/sinks.md's tables of the kinds of sink and of their options are the registry's: the kinds
 * the application registers (not the tests' fixture), their descriptions, and each option with its
 * default and meaning, the common ones first. A kind or an option added to the code and not to the
 * page fails, with the tables as the code has them in the message.
 */
@Tag("fast")
class SinkDocsTest {

    private static final Path DOC = Path.of("docs", "sinks.md");
    static final String START = "<!-- sink-options: generated from the sink registry, checked by SinkDocsTest -->";
    static final String END = "<!-- sink-options: end -->";

    @Test
    void theOptionTablesOfDocsSinksMdAreTheRegistrys() throws IOException {
        String markdown = Files.readString(DOC);
        int start = markdown.indexOf(START);
        int end = markdown.indexOf(END);
        assertThat(start).as("%s holds the marker %s", DOC, START).isNotNegative();
        assertThat(end).as("%s holds the marker %s", DOC, END).isGreaterThan(start);
        String documented = markdown.substring(start + START.length(), end).strip();
        String code;
        try (var registry = SinkPlugin.registry()) {
            code = tables(registry.plugins().stream().filter(SinkDocsTest::isOwn).toList());
        }
        assertThat(documented).as("docs/sinks.md differs from the sink registry; the tables as the code has them:%n%s",
                code).isEqualTo(code);
    }

    @Test
    void aKindMissingFromThePageIsNoticed() {
        try (var registry = SinkPlugin.registry()) {
            String own = tables(registry.plugins().stream().filter(SinkDocsTest::isOwn).toList());
            String all = tables(registry.plugins());
            assertThat(all).isNotEqualTo(own).contains("`test-memory`");
            assertThat(own).doesNotContain("test-memory");
        }
    }

    private static boolean isOwn(SinkPlugin<?> plugin) {
        return PluginRegistry.isOwn(plugin, SinkPlugin.class);
    }

    static String tables(List<SinkPlugin<?>> plugins) {
        var out = new StringBuilder();
        out.append("| Type | Writes to |\n|---|---|\n");
        for (SinkPlugin<?> plugin : plugins) {
            out.append("| `").append(plugin.kind().type()).append("` | ").append(plugin.kind().description())
                    .append(" |\n");
        }
        out.append("\n| Property (`pgharvest.sinks[i].…`) | Applies to | Default | Meaning |\n|---|---|---|---|\n");
        SinkEntryProperties.OPTIONS.forEach(option -> row(out, option, "all"));
        for (SinkPlugin<?> plugin : plugins) {
            plugin.kind().options().forEach(option -> row(out, option, plugin.kind().type()));
        }
        return out.toString().strip();
    }

    private static void row(StringBuilder out, PluginOption option, String appliesTo) {
        out.append("| `").append(option.name()).append("` | ").append(appliesTo).append(" | ")
                .append(option.defaultValue()).append(" | ").append(option.meaning()).append(" |\n");
    }
}
