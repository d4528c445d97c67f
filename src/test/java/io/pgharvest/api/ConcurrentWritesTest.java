package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.store.ConfigStore;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.core.type.TypeReference;
import tools.jackson.dataformat.yaml.YAMLMapper;

class ConcurrentWritesTest extends ApiTestBase {

    @Autowired
    ConfigStore store;

    private static final int THREADS = 50;
    private static final int SOURCES_PER_THREAD = 6;

    @Test
    void fiftyConcurrentWritersLeaveAStoreThatHoldsExactlyWhatWasAcknowledged() throws Exception {
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        AtomicInteger writes = new AtomicInteger();
        long storeIndexBefore = store.changes().index();
        CountDownLatch start = new CountDownLatch(1);

        try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> writers = new java.util.ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                writers.add(executor.submit(() -> {
                    start.await();
                    for (int i = 0; i < SOURCES_PER_THREAD; i++) {
                        String name = "conc-" + thread + "-" + i;
                        var created = api().post("/api/v1/sources", Map.of("name", name,
                                "connStr", "postgresql://u:pw@db" + thread + "/x", "preset", "basic"));
                        assertThat(created.status()).as(created.toString()).isEqualTo(201);
                        acknowledged.add(name);
                        writes.incrementAndGet();
                        if (i % 2 == 0) {
                            var deleted = api().delete("/api/v1/sources/" + name);
                            assertThat(deleted.status()).as(deleted.toString()).isEqualTo(204);
                            acknowledged.remove(name);
                            writes.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> writer : writers) {
                writer.get();
            }
        }

        var listed = api().get("/api/v1/sources");
        assertThat(names(listed.json().valueStream().map(s -> s.get("name").asString()).toList()))
                .isEqualTo(new TreeSet<>(acknowledged));
        assertThat(acknowledged).hasSize(THREADS * SOURCES_PER_THREAD / 2);
        assertThat(store.changes().index() - storeIndexBefore).as("one store index step per write")
                .isEqualTo(writes.get());
        assertThat(listed.index()).isEqualTo(store.changes().index());
        List<Map<String, Object>> file = new YAMLMapper().readValue(Files.readAllBytes(DATA_DIR.resolve("sources.yaml")),
                new TypeReference<>() {
                });
        assertThat(names(file.stream().map(entry -> (String) entry.get("name")).toList()))
                .isEqualTo(new TreeSet<>(acknowledged));
    }

    private static TreeSet<String> names(List<String> all) {
        return new TreeSet<>(all.stream().filter(name -> name.startsWith("conc-")).toList());
    }
}
