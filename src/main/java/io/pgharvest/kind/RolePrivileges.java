package io.pgharvest.kind;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What the role of a monitoring session could do beyond reading. pgharvest's read-only wall
 * (docs/security.md) does not depend on it, but a superuser or a role that can write makes any
 * gap in that wall worse, so operators are told (status, health, one log line) and may refuse
 * such sources ({@code pgharvest.reaper.refuse-privileged-sources}).
 *
 * @param superuser the role is a superuser
 * @param writableTable a table of the session's database the role may insert into, update,
 *     delete from or truncate, or null
 */
public record RolePrivileges(boolean superuser, String writableTable) {

    /** Read once per session: one catalog query that stops at the first writable table. */
    private static final String SQL = """
            select current_setting('is_superuser') = 'on',
                   (select c.oid::regclass::text from pg_class c join pg_namespace n on n.oid = c.relnamespace
                     where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema')
                       and n.nspname not like 'pg\\_toast%'
                       and has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE') limit 1)""";

    public static final RolePrivileges READ_ONLY = new RolePrivileges(false, null);

    /** Reads the privileges of the session's role on a PostgreSQL server. */
    public static RolePrivileges of(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(SQL)) {
            row.next();
            return new RolePrivileges(row.getBoolean(1), row.getString(2));
        }
    }

    /** Whether the role can do more than read. */
    public boolean privileged() {
        return superuser || writableTable != null;
    }

    /** What the operator should know, or null when the role only reads. */
    public String warning() {
        if (superuser) {
            return "connects as a superuser; use a role with pg_monitor only (docs/security.md)";
        }
        if (writableTable != null) {
            return "connects as a role that can write (e.g. table " + writableTable
                    + "); use a role with pg_monitor only (docs/security.md)";
        }
        return null;
    }
}
