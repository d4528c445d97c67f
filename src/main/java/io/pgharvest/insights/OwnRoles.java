package io.pgharvest.insights;

import io.pgharvest.nativemetric.SqlReader;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * pgharvest's own roles on a session: the login role and the role it acts as, whose statements
 * query_stats and query_texts leave out unless {@code include-own-statements} is on. A member of an
 * instance-wide read asks for them once, since another member's session made the read.
 */
final class OwnRoles {

    private static final String SQL = "select session_user::text as login_role, current_user::text as acting_role";

    private OwnRoles() {
    }

    static Set<String> of(SqlReader sql) throws SQLException {
        Map<String, Object> row = sql.query(SQL).getFirst();
        return Set.copyOf(List.of(String.valueOf(row.get("login_role")), String.valueOf(row.get("acting_role"))));
    }
}
