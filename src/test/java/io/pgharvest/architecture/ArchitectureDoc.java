package io.pgharvest.architecture;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The package table of docs/architecture.md, and the same table read from compiled classes, so
 * that {@link ArchitectureDocTest} can say where the two differ. A row names one package (relative
 * to the root, {@code (root)} for the root itself), its layer ({@link PackageRules#LAYERS}, counted
 * from 0), its number of top-level classes, and the pgharvest packages its classes import
 * ({@code nothing} when none).
 */
record ArchitectureDoc(Map<String, Row> rows) {

    /** The table's rows, found by their shape: {@code | `pkg` | layer | classes | imports |}. */
    private static final Pattern ROW = Pattern.compile(
            "^\\| `([\\w.()]+)` \\| (\\d+) \\| (\\d+) \\| (.*?) \\|\\s*$", Pattern.MULTILINE);
    private static final String ROOT_NAME = "(root)";

    record Row(String name, int layer, int classes, Set<String> imports) {
    }

    static ArchitectureDoc parse(String markdown) {
        Map<String, Row> rows = new TreeMap<>();
        Matcher m = ROW.matcher(markdown);
        while (m.find()) {
            Set<String> imports = m.group(4).strip().equals("nothing") ? Set.of()
                    : Arrays.stream(m.group(4).split(","))
                            .map(s -> s.strip().replace("`", ""))
                            .collect(Collectors.toCollection(TreeSet::new));
            Row row = new Row(m.group(1), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)), imports);
            if (rows.put(row.name(), row) != null) {
                throw new IllegalArgumentException("package " + row.name() + " has two rows in the table");
            }
        }
        return new ArchitectureDoc(rows);
    }

    /** The table as the compiled classes under {@code root} have it. */
    static ArchitectureDoc read(JavaClasses classes, String root) {
        Map<String, Integer> counts = new TreeMap<>();
        Map<String, Set<String>> imports = new TreeMap<>();
        for (JavaClass javaClass : classes) {
            String own = relative(root, javaClass.getPackageName());
            if (own == null) {
                continue;
            }
            imports.computeIfAbsent(own, p -> new TreeSet<>());
            if (javaClass.isTopLevelClass() && !javaClass.getSimpleName().equals("package-info")) {
                counts.merge(own, 1, Integer::sum);
            }
            for (Dependency dependency : javaClass.getDirectDependenciesFromSelf()) {
                String target = relative(root, dependency.getTargetClass().getPackageName());
                if (target != null && !target.equals(own)) {
                    imports.get(own).add(target);
                }
            }
        }
        Map<String, Row> rows = new TreeMap<>();
        imports.forEach((name, imported) -> rows.put(name, new Row(name,
                PackageRules.layerOf(root, name.equals(ROOT_NAME) ? root : root + "." + name),
                counts.getOrDefault(name, 0), imported)));
        return new ArchitectureDoc(rows);
    }

    /** What the doc says that the code does not, one line each; empty when they agree. */
    List<String> differencesFrom(ArchitectureDoc code) {
        List<String> problems = new ArrayList<>();
        for (String name : code.rows().keySet()) {
            if (!rows.containsKey(name)) {
                problems.add("package " + name + " is in the code but not in the table");
            }
        }
        for (Row doc : rows.values()) {
            Row actual = code.rows().get(doc.name());
            if (actual == null) {
                problems.add("package " + doc.name() + " is in the table but not in the code");
                continue;
            }
            if (doc.layer() != actual.layer()) {
                problems.add("package " + doc.name() + ": layer " + doc.layer() + " in the table, " + actual.layer()
                        + " in the code (PackageRules.LAYERS)");
            }
            if (doc.classes() != actual.classes()) {
                problems.add("package " + doc.name() + ": " + doc.classes() + " classes in the table, "
                        + actual.classes() + " in the code");
            }
            var missing = new TreeSet<>(actual.imports());
            missing.removeAll(doc.imports());
            var extra = new TreeSet<>(doc.imports());
            extra.removeAll(actual.imports());
            if (!missing.isEmpty()) {
                problems.add("package " + doc.name() + " imports " + missing + ", which the table does not say");
            }
            if (!extra.isEmpty()) {
                problems.add("package " + doc.name() + " does not import " + extra + ", which the table says");
            }
        }
        return problems;
    }

    /** The table in the doc's format, for writing the doc after a change. */
    String table() {
        var out = new StringBuilder("| package | layer | classes | imports from pgharvest |\n|---|---|---|---|\n");
        rows.values().stream()
                .sorted((a, b) -> a.layer() != b.layer() ? Integer.compare(a.layer(), b.layer()) : a.name().compareTo(b.name()))
                .forEach(row -> out.append("| `").append(row.name()).append("` | ").append(row.layer()).append(" | ")
                        .append(row.classes()).append(" | ")
                        .append(row.imports().isEmpty() ? "nothing"
                                : row.imports().stream().map(i -> "`" + i + "`").collect(Collectors.joining(", ")))
                        .append(" |\n"));
        return out.toString();
    }

    private static String relative(String root, String packageName) {
        if (packageName.equals(root)) {
            return ROOT_NAME;
        }
        return packageName.startsWith(root + ".") ? packageName.substring(root.length() + 1) : null;
    }
}
