package io.pgharvest.store.postgres;

import io.pgharvest.testsupport.TestPostgres;

/** Fresh configuration databases on the shared test server. */
public final class PostgresStores {

    private PostgresStores() {
    }

    /** Creates (or empties) database {@code name} and returns its {@code pgharvest.store.url}. */
    public static String newDatabase(String name) {
        TestPostgres server = TestPostgres.shared();
        server.execute("postgres", "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        server.createDatabase(name);
        return server.connStr(name);
    }
}
