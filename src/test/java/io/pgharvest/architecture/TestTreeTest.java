package io.pgharvest.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The test tree mirrors the main packages: every package of src/main (read from the compiled
 * classes) has a test package of the same name in src/test holding at least one test class, so a
 * reader finds a class's tests beside where its package would be. {@link #aMainPackageWithoutTestsFails}
 * shows the check failing.
 */
@Tag("fast")
class TestTreeTest {

    private static final Path TEST_SOURCES = Path.of("src", "test", "java");

    @Test
    void everyMainPackageHasATestPackage() {
        assertThat(withoutTests(mainPackages(), testPackages()))
                .as("main packages without a test package of the same name under %s", TEST_SOURCES)
                .isEmpty();
    }

    @Test
    void aMainPackageWithoutTestsFails() {
        Set<String> tests = new TreeSet<>(testPackages());
        tests.remove("io.pgharvest.support");
        tests.remove("io.pgharvest");

        assertThat(withoutTests(mainPackages(), tests)).containsExactly("io.pgharvest", "io.pgharvest.support");
    }

    private static Set<String> withoutTests(Set<String> main, Set<String> tests) {
        return main.stream().filter(pkg -> !tests.contains(pkg)).collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> mainPackages() {
        return ProductionClasses.get().stream().map(JavaClass::getPackageName)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** Packages of src/test holding a file named {@code *Test.java} with a JUnit test in it. */
    private static Set<String> testPackages() {
        try (Stream<Path> files = Files.walk(TEST_SOURCES)) {
            return files.filter(file -> file.getFileName().toString().endsWith("Test.java"))
                    .filter(TestTreeTest::holdsATest)
                    .map(file -> TEST_SOURCES.relativize(file.getParent()).toString().replace('/', '.'))
                    .collect(Collectors.toCollection(TreeSet::new));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean holdsATest(Path file) {
        try {
            String source = Files.readString(file);
            return source.contains("@Test") || source.contains("@ParameterizedTest");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
