package io.pgharvest.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The claims of docs/architecture.md's prose that code can check: each "imports" sentence of a
 * package's paragraph against the package's real imports, "the kernel names no kind" against
 * every class outside the kinds' packages, and the steps of adding a kind or a sink against the
 * checks the tests make of a new one. Each check is shown failing on a false text too.
 */
@Tag("fast")
class ArchitectureProseTest {

    private static final String ROOT = "io.pgharvest";
    private static final Path DOC = Path.of("docs", "architecture.md");
    private static final Path CLASSES = Path.of("target", "classes");

    /**
     * An imports claim: {@code `pkg` imports [only] `a`, `b` and `c`}, or in a section about one
     * package, {@code Imports `a`, `b`} or {@code It imports only `a`}. A parenthesis after a name
     * says why and is skipped.
     */
    private static final Pattern CLAIM = Pattern.compile(
            "(?:`(?<subject>[a-z.]+)` imports|(?<start>(?:^|[.;:]\\s+)Imports)|\\bIt imports)(?<only> only)? "
                    + "(?<list>`[a-z.]+`(?: \\([^)]*\\))?(?:(?:,| and|, and) `[a-z.]+`(?: \\([^)]*\\))?)*)");
    private static final Pattern NAME = Pattern.compile("`([a-z.]+)`");

    /** The words that name a kind of source, or what only one kind has (Patroni's DCS). */
    private static final Pattern KIND_WORD = Pattern.compile("\\b(patroni|pgbouncer|pgpool|etcd|dcs)",
            Pattern.CASE_INSENSITIVE);

    private static ArchitectureDoc code;
    private static String markdown;

    @BeforeAll
    static void readCodeAndDoc() throws IOException {
        code = ArchitectureDoc.read(ProductionClasses.get(), ROOT);
        markdown = Files.readString(DOC);
    }

    @Test
    void everyImportsSentenceStatesThePackagesImports() {
        List<String> claims = new ArrayList<>();
        assertThat(falseClaims(markdown, claims)).isEmpty();
        // The paragraphs that list a package's imports are checked, not skipped by the pattern.
        assertThat(claims).contains("config", "config.plugin", "store", "fanout", "api", "lease", "window",
                "operations", "changes", "discovery", "nativemetric", "support");
    }

    @Test
    void anImportsSentenceThatDiffersFromTheCodeFails() {
        String drifted = markdown.replace("Imports `model`, `sink`, `sink.dispatch`.", "Imports `model`, `sink`.")
                .replace("`nativemetric` imports `model`;", "`nativemetric` imports `model` and `reaper`;");
        assertThat(falseClaims(drifted, new ArrayList<>())).containsExactlyInAnyOrder(
                "changes: the doc says it imports only [model, sink], the code has [model, sink, sink.dispatch]",
                "nativemetric: the doc says it imports [model, reaper], the code does not import [reaper]");
    }

    /**
     * "The kernel names no kind": no class outside {@code kind}'s sub-packages has a name or a
     * string constant naming a kind of source (string constants of a kind's classes that the
     * compiler copies into another class count too). Comments are not read.
     */
    @Test
    void noClassOutsideTheKindsNamesAKind() {
        assertThat(markdown).contains("No class outside the kinds' own packages names a kind");
        assertThat(namingAKind(CLASSES.resolve("io/pgharvest"), "io/pgharvest/kind/")).isEmpty();
    }

    @Test
    void aClassNamingAKindIsFound() {
        // The kinds' own classes are full of their names: read as if they were outside.
        assertThat(namingAKind(CLASSES.resolve("io/pgharvest/kind/patroni"), "none/"))
                .anySatisfy(problem -> assertThat(problem).startsWith("io/pgharvest/kind/patroni/"));
    }

    /**
     * What a new kind or sink must bring because a test checks it is in the steps of adding one:
     * its registration file, its package's row in the table ({@link ArchitectureDocTest}), its test
     * package ({@link TestTreeTest}), and for a sink its rows in docs/sinks.md ({@code SinkDocsTest}).
     */
    @Test
    void theStepsOfAddingAKindOrASinkNameWhatTheTestsRequire() {
        assertThat(section(markdown, "## Adding a kind")).contains(
                "META-INF/services/io.pgharvest.model.KindRules", "`ArchitectureDocTest`", "`TestTreeTest`");
        assertThat(section(markdown, "## Adding a sink")).contains(
                "META-INF/services/io.pgharvest.sink.SinkPlugin", "`SinkDocsTest`", "`ArchitectureDocTest`",
                "`TestTreeTest`");
    }

    /** Claims of {@code text} that the code does not bear out, one line each; {@code checked} gets each subject. */
    private static List<String> falseClaims(String text, List<String> checked) {
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, String> section : sections(text).entrySet()) {
            Matcher claim = CLAIM.matcher(section.getValue());
            while (claim.find()) {
                String subject = claim.group("subject") != null ? claim.group("subject") : section.getKey();
                if (subject == null) {
                    problems.add("'" + claim.group().strip() + "' in a section about no one package");
                    continue;
                }
                checked.add(subject);
                ArchitectureDoc.Row row = code.rows().get(subject);
                if (row == null) {
                    problems.add(subject + ": the doc says what it imports, but the code has no such package");
                    continue;
                }
                Set<String> said = names(claim.group("list"));
                boolean whole = claim.group("only") != null || claim.group("start") != null;
                var notImported = new TreeSet<>(said);
                notImported.removeAll(row.imports());
                if (whole && !said.equals(row.imports())) {
                    problems.add(subject + ": the doc says it imports only " + said + ", the code has "
                            + new TreeSet<>(row.imports()));
                } else if (!notImported.isEmpty()) {
                    problems.add(subject + ": the doc says it imports " + said + ", the code does not import "
                            + notImported);
                }
            }
        }
        return problems;
    }

    /** The names of a claim's list, without what its parentheses say. */
    private static Set<String> names(String list) {
        Set<String> names = new TreeSet<>();
        Matcher name = NAME.matcher(list.replaceAll("\\([^)]*\\)", ""));
        while (name.find()) {
            names.add(name.group(1));
        }
        return names;
    }

    /**
     * Each {@code ## } section's text, whitespace folded to single spaces, by the one package its
     * heading names before its dash ({@code ## config — process settings}); under null the
     * sections about several packages or none.
     */
    private static Map<String, String> sections(String text) {
        Map<String, String> sections = new LinkedHashMap<>();
        String[] parts = text.split("(?m)^## ");
        for (int i = 1; i < parts.length; i++) {
            String heading = parts[i].lines().findFirst().orElse("");
            String name = heading.contains(" — ") ? heading.substring(0, heading.indexOf(" — ")).strip() : "";
            sections.merge(name.matches("[a-z.]+") ? name : null, parts[i].replaceAll("\\s+", " "),
                    (a, b) -> a + " " + b);
        }
        return sections;
    }

    private static String section(String text, String heading) {
        int start = text.indexOf(heading + "\n");
        assertThat(start).as("docs/architecture.md has a section %s", heading).isNotNegative();
        int end = text.indexOf("\n## ", start + heading.length());
        return end < 0 ? text.substring(start) : text.substring(start, end);
    }

    /** Class files below {@code dir}, except those below {@code exempt}, whose name or a string constant names a kind. */
    private static List<String> namingAKind(Path dir, String exempt) {
        List<String> problems = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            files.filter(file -> file.toString().endsWith(".class")).forEach(file -> {
                String name = CLASSES.relativize(file).toString().replace('\\', '/');
                if (name.startsWith(exempt)) {
                    return;
                }
                if (KIND_WORD.matcher(name.substring(name.lastIndexOf('/') + 1)).find()) {
                    problems.add(name + " is named for a kind");
                }
                for (String constant : strings(file)) {
                    if (KIND_WORD.matcher(constant).find()) {
                        problems.add(name + " holds \"" + constant + "\"");
                    }
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return problems;
    }

    /** The string constants of a class file, read from its constant pool (JVMS 4.4), lower-cased. */
    private static List<String> strings(Path classFile) {
        try (var in = new DataInputStream(Files.newInputStream(classFile))) {
            in.readInt(); // magic
            in.readUnsignedShort(); // minor version
            in.readUnsignedShort(); // major version
            int count = in.readUnsignedShort();
            String[] utf8 = new String[count];
            List<Integer> strings = new ArrayList<>();
            for (int i = 1; i < count; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> utf8[i] = in.readUTF();
                    case 8 -> strings.add(in.readUnsignedShort());
                    case 7, 16, 19, 20 -> in.readUnsignedShort();
                    case 15 -> in.skipNBytes(3);
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4);
                    case 5, 6 -> {
                        in.skipNBytes(8);
                        i++; // a long or double takes two entries
                    }
                    default -> throw new IllegalStateException(classFile + ": constant pool tag " + tag);
                }
            }
            return strings.stream().map(index -> utf8[index].toLowerCase(Locale.ROOT)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
