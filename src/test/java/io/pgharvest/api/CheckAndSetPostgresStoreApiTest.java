package io.pgharvest.api;

import io.pgharvest.store.postgres.PostgresStores;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@link CheckAndSetApiTests} on the PostgreSQL configuration store ({@code pgharvest.store.url}). */
class CheckAndSetPostgresStoreApiTest extends CheckAndSetApiTests {

    @DynamicPropertySource
    static void postgresStore(DynamicPropertyRegistry registry) {
        String url = PostgresStores.newDatabase("api_check_and_set");
        registry.add("pgharvest.store.url", () -> url);
    }

    @Override
    String prefix() {
        return "pg";
    }
}
