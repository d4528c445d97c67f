package io.pgharvest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.bind.annotation.RestController;

/**
 * Collection starts before the web layer exists (issue 50, the first row): the imported source's
 * first measurement reaches the sink while Spring is still creating the controllers, and a start
 * that fails after collection began stops the reapers and closes their sessions.
 */
class EngineStartTest {

    private static final TestPostgres pg = TestPostgres.shared();

    @Test
    void theFirstMeasurementReachesTheSinkBeforeTheFirstControllerIsCreated(@TempDir Path dir) throws IOException {
        String db = "engine_start_first_db";
        pg.createDatabase(db);
        Path jsonFile = dir.resolve("out.jsonl");
        var rowsWhenTheFirstControllerWasMade = new AtomicReference<Boolean>();
        // Holds the creation of the first controller until the sink has the source's row (at most
        // 60 s): were the reapers started only with the web layer, nothing would arrive meanwhile.
        BeanPostProcessor firstController = new BeanPostProcessor() {
            @Override
            public Object postProcessBeforeInitialization(Object bean, String beanName) {
                if (bean.getClass().isAnnotationPresent(RestController.class)
                        && rowsWhenTheFirstControllerWasMade.get() == null) {
                    rowsWhenTheFirstControllerWasMade.set(awaitRow(jsonFile, db, Duration.ofSeconds(60)));
                }
                return bean;
            }
        };
        var application = new SpringApplication(PgharvestApplication.class);
        application.addInitializers(context -> context.getBeanFactory().addBeanPostProcessor(firstController));
        try (ConfigurableApplicationContext ignored = application.run(arguments(dir, db, jsonFile, 0))) {
            assertThat(rowsWhenTheFirstControllerWasMade.get())
                    .as("the source's first measurement was in the sink when the first controller was created")
                    .isTrue();
        }
    }

    @Test
    void aStartThatFailsAfterCollectionBeganStopsTheReapersAndClosesTheirSessions(@TempDir Path dir)
            throws IOException {
        String db = "engine_start_failed_db";
        pg.createDatabase(db);
        Path jsonFile = dir.resolve("out.jsonl");
        // A web-layer bean that fails once the source's row is in the sink: the refresh fails
        // while the context has no lifecycle processor yet to stop the reapers.
        BeanPostProcessor failingController = new BeanPostProcessor() {
            @Override
            public Object postProcessBeforeInitialization(Object bean, String beanName) {
                if (bean.getClass().isAnnotationPresent(RestController.class)) {
                    assertThat(awaitRow(jsonFile, db, Duration.ofSeconds(60))).isTrue();
                    throw new IllegalStateException("a web-layer bean that cannot be created");
                }
                return bean;
            }
        };
        var application = new SpringApplication(PgharvestApplication.class);
        application.addInitializers(context -> context.getBeanFactory().addBeanPostProcessor(failingController));
        assertThatThrownBy(() -> application.run(arguments(dir, db, jsonFile, 0)))
                .hasStackTraceContaining("a web-layer bean that cannot be created");
        Awaitility.await("no reaper thread and no session of the failed start left")
                .atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                            .noneMatch(name -> name.startsWith("reaper-"));
                    assertThat(pg.queryString("postgres", "select count(*) from pg_stat_activity where datname = '"
                            + db + "'")).isEqualTo("0");
                });
    }

    private static String[] arguments(Path dir, String db, Path jsonFile, int port) throws IOException {
        Path sources = Files.writeString(dir.resolve("sources.yaml"), """
                - name: %s
                  conn_str: %s
                  is_enabled: true
                  custom_metrics:
                    db_size: 1
                """.formatted(db, pg.connStr(db)));
        var arguments = new ArrayList<>(List.of("--server.port=" + port, "--server.address=127.0.0.1",
                "--spring.main.banner-mode=off", "--pgharvest.data-dir=" + dir.resolve("data"),
                "--pgharvest.api.token=engine-start-token-0123", "--pgharvest.security.allow-superuser-sources=true",
                "--pgharvest.import.sources=" + sources, "--pgharvest.sinks[0].type=jsonfile",
                "--pgharvest.sinks[0].path=" + jsonFile));
        return arguments.toArray(String[]::new);
    }

    /** Whether a measurement of {@code source} is in the JSON lines file within {@code timeout}. */
    private static boolean awaitRow(Path jsonFile, String source, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            try {
                if (Files.readString(jsonFile).contains("\"source\":\"" + source + "\"")) {
                    return true;
                }
            } catch (NoSuchFileException e) {
                // not written yet
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }
}
