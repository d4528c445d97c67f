import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Build step of the JDK 25 ahead-of-time cache (docs/performance.md, "JVM flags"). A single-file
 * program, run by exec-maven-plugin with the toolchain's {@code java} (source-file mode, no
 * compilation step), so that the cache is made and checked by the same JDK that the build selected,
 * whatever JDK runs Maven itself. Not part of the application.
 *
 * <pre>
 * java AotCache.java create FAT_JAR APP_DIR JVM_OPTIONS WORK_DIR SKIP_TRAINING
 * java AotCache.java check  APP_DIR JVM_OPTIONS WORK_DIR SKIP...
 * </pre>
 *
 * {@code create} extracts the fat jar to APP_DIR ({@code pgharvest.jar} + {@code lib/}) and, on
 * JDK 25 or newer, trains APP_DIR/pgharvest.aot: the application starts with the project's JVM
 * flags, a throw-away data directory and free ports, and exits once its context is refreshed
 * ({@code spring.context.exit=onRefresh}), before collection starts. {@code check} starts the
 * extracted jar with {@code -XX:AOTMode=on} (the JVM refuses to start if it cannot use the cache)
 * and fails unless most classes come from the cache.
 */
public class AotCache {

    /** First JDK with -XX:AOTCacheOutput (JEP 514). */
    private static final int FIRST_AOT_JDK = 25;
    private static final String JAR = "pgharvest.jar";
    private static final String CACHE = "pgharvest.aot";
    /** A training run takes 15 s on two busy cores; this only stops a hung one. */
    private static final long TIMEOUT_MINUTES = 5;
    /**
     * Share of loaded classes the check wants from the cache: about 95 % are with a cache that
     * works; without one only the JDK's own archive serves classes (under 10 %).
     */
    private static final double MIN_CACHED_SHARE = 0.80;

    public static void main(String[] args) throws Exception {
        if (args.length == 6 && args[0].equals("create")) {
            create(Path.of(args[1]), Path.of(args[2]), Path.of(args[3]), Path.of(args[4]), Boolean.parseBoolean(args[5]));
        } else if (args.length >= 4 && args[0].equals("check")) {
            // Skipped when any of the flags that follow is true (aot.skip, skipTests, skipITs).
            boolean skip = Stream.of(args).skip(4).anyMatch(Boolean::parseBoolean);
            check(Path.of(args[1]), Path.of(args[2]), Path.of(args[3]), skip);
        } else {
            fail("usage: AotCache create FAT_JAR APP_DIR JVM_OPTIONS WORK_DIR SKIP_TRAINING"
                    + " | check APP_DIR JVM_OPTIONS WORK_DIR SKIP...");
        }
    }

    private static void create(Path fatJar, Path appDir, Path jvmOptions, Path workDir, boolean skipTraining)
            throws Exception {
        // A fresh directory: a cache left from an older jar would only be refused at run time.
        deleteRecursively(appDir);
        run(List.of(java(), "-Djarmode=tools", "-jar", fatJar.toString(), "extract", "--destination",
                appDir.toString()), workDir.resolve("extract.log"), "extracting " + fatJar);
        if (skipTraining) {
            say("training skipped (aot.skip=true): " + appDir.resolve(JAR) + " starts without an AOT cache");
            return;
        }
        if (!aotCapable()) {
            return;
        }
        Path cache = appDir.resolve(CACHE);
        Path dataDir = workDir.resolve("training-data");
        List<String> command = new ArrayList<>(List.of(java(), "@" + jvmOptions, "-XX:AOTCacheOutput=" + cache,
                "-Dspring.context.exit=onRefresh", "-jar", appDir.resolve(JAR).toString()));
        command.addAll(isolatedApplication(dataDir));
        long start = System.nanoTime();
        run(command, workDir.resolve("training.log"), "the AOT training run");
        if (!Files.isRegularFile(cache)) {
            fail("the training run ended without writing " + cache + "; see " + workDir.resolve("training.log"));
        }
        say(String.format(Locale.ROOT, "%s: %d MB, trained in %.1f s (log: %s)", cache, Files.size(cache) >> 20,
                (System.nanoTime() - start) / 1e9, workDir.resolve("training.log")));
    }

    private static void check(Path appDir, Path jvmOptions, Path workDir, boolean skip) throws Exception {
        Path cache = appDir.resolve(CACHE);
        if (skip) {
            say("check of " + cache + " skipped (aot.skip, skipTests or skipITs)");
            return;
        }
        if (!aotCapable()) {
            return;
        }
        if (!Files.isRegularFile(cache)) {
            fail(cache + " is missing: build it with ./mvnw -B package (without -Daot.skip=true)");
        }
        Path classLog = workDir.resolve("check-classes.log");
        Files.deleteIfExists(classLog);
        List<String> command = new ArrayList<>(List.of(java(), "@" + jvmOptions, "-XX:AOTMode=on",
                "-XX:AOTCache=" + cache, "-Xlog:class+load=info:file=" + classLog,
                "-Dspring.context.exit=onRefresh", "-jar", appDir.resolve(JAR).toString()));
        command.addAll(isolatedApplication(workDir.resolve("check-data")));
        run(command, workDir.resolve("check.log"), "the start with -XX:AOTMode=on (the JVM refused " + cache + "?)");
        List<String> loaded = Files.readAllLines(classLog, StandardCharsets.UTF_8).stream()
                .filter(line -> line.contains(" source: ")).toList();
        long cached = loaded.stream().filter(line -> line.endsWith("source: shared objects file")).count();
        double share = loaded.isEmpty() ? 0 : (double) cached / loaded.size();
        String figures = String.format(Locale.ROOT, "%d of %d classes (%.0f %%) came from %s", cached, loaded.size(),
                share * 100, cache);
        if (share < MIN_CACHED_SHARE) {
            fail(figures + ", expected at least " + Math.round(MIN_CACHED_SHARE * 100) + " %; see " + classLog);
        }
        say(figures);
    }

    /**
     * Application arguments that keep a training or check run to itself: its own data directory
     * (the configuration store starts empty, with the built-in metrics) and sinks on a file and a
     * free port, so that it neither reads the developer's ./pgharvest-data nor clashes with a
     * running pgharvest on 8080 or 9187. The web server is created but not started before the exit.
     */
    private static List<String> isolatedApplication(Path dataDir) throws IOException {
        deleteRecursively(dataDir);
        return List.of("--pgharvest.data-dir=" + dataDir, "--server.port=0",
                "--pgharvest.sinks[0].type=jsonfile", "--pgharvest.sinks[0].path=" + dataDir.resolve("measurements.jsonl"),
                "--pgharvest.sinks[1].type=prometheus", "--pgharvest.sinks[1].port=0");
    }

    private static boolean aotCapable() {
        int feature = Runtime.version().feature();
        if (feature >= FIRST_AOT_JDK) {
            return true;
        }
        say("no AOT cache: the build's JDK is " + Runtime.version() + " (" + System.getProperty("java.home")
                + "), the cache needs JDK " + FIRST_AOT_JDK + " or newer; pgharvest runs without it");
        return false;
    }

    /** Runs a child JVM with the output in {@code log}; fails the build with the log's tail unless it exits 0. */
    private static void run(List<String> command, Path log, String what) throws Exception {
        Files.createDirectories(log.getParent());
        var builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        // The developer's environment must not configure the run (a configuration store URL, a
        // token, extra JVM options that would differ from the README's command).
        builder.environment().keySet().removeIf(name -> name.startsWith("PGHARVEST_") || name.startsWith("SPRING_")
                || name.equals("JAVA_TOOL_OPTIONS") || name.equals("JDK_JAVA_OPTIONS"));
        Process process = builder.start();
        if (!process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
            fail(what + " did not end within " + TIMEOUT_MINUTES + " minutes; see " + log);
        }
        if (process.exitValue() != 0) {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            System.err.println(String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())));
            fail(what + " failed with exit code " + process.exitValue() + "; full output in " + log);
        }
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    private static void say(String message) {
        System.out.println("[aot] " + message);
    }

    private static void fail(String message) {
        System.err.println("[aot] " + message);
        System.exit(1);
    }
}
