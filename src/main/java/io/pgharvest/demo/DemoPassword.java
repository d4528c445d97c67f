package io.pgharvest.demo;

import io.pgharvest.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Gives the demo server's superuser and its monitoring role ({@value #MONITOR_ROLE}, the one the
 * demo source logs in as) a generated password and makes every connection use it: the embedded
 * launcher trusts local connections (right for tests), which on a shared host would let any local
 * user in as a superuser.
 */
final class DemoPassword {

    private static final String HBA = """
            # pgharvest demo: every connection needs the generated password
            local all all scram-sha-256
            host all all 127.0.0.1/32 scram-sha-256
            host all all ::1/128 scram-sha-256
            """;

    /** The role the demo source logs in as: pg_monitor only, same generated password. */
    static final String MONITOR_ROLE = "pgharvest_monitor";

    private DemoPassword() {
    }

    /**
     * Gives both roles {@code password} (the demo's kept one), switches authentication to
     * scram-sha-256. Logs in with that password: a new cluster trusts it, a kept one requires it.
     */
    static void require(EmbeddedPostgres server, String password) {
        String url = "jdbc:postgresql://" + server.host() + ":" + server.port() + "/postgres";
        var login = new java.util.Properties();
        login.setProperty("user", "postgres");
        login.setProperty("password", password);
        try (Connection c = DriverManager.getConnection(url, login); Statement st = c.createStatement()) {
            st.execute("set password_encryption = 'scram-sha-256'");
            st.execute("alter role postgres password '" + password + "'");
            // pgharvest collects as a pg_monitor role, as docs/security.md asks of every source
            // (superuser logins are refused by default).
            st.execute("do $$ begin if not exists (select from pg_roles where rolname = '" + MONITOR_ROLE + "') then"
                    + " create role " + MONITOR_ROLE + " login; end if; end $$");
            st.execute("alter role " + MONITOR_ROLE + " password '" + password + "'");
            st.execute("grant pg_monitor to " + MONITOR_ROLE);
            // The demo's history: the PostgreSQL sink's database (DemoHistory), kept with the cluster.
            try (ResultSet rs = st.executeQuery("select 1 from pg_database where datname = '" + DemoHistory.DATABASE + "'")) {
                if (!rs.next()) {
                    st.execute("create database " + DemoHistory.DATABASE);
                }
            }
            String hbaFile;
            try (ResultSet rs = st.executeQuery("show hba_file")) {
                rs.next();
                hbaFile = rs.getString(1);
            }
            server.writeServerFile(hbaFile, HBA);
            st.execute("select pg_reload_conf()");
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot protect the demo server with a password: " + e.getMessage(), e);
        }
    }
}
