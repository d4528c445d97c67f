package io.pgharvest.model;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.InvalidConnectionStringException;
import java.util.List;

/**
 * A PostgreSQL server, named by a libpq connection string; with continuous discovery, also the
 * name patterns of the databases it collects.
 */
class ServerKindRules implements KindRules {

    private final boolean selectsDatabases;

    ServerKindRules(boolean selectsDatabases) {
        this.selectsDatabases = selectsDatabases;
    }

    @Override
    public void checkConnection(String connStr, List<FieldProblem> problems) {
        try {
            ConnectionString parsed = ConnectionString.parse(connStr);
            if (parsed.password().filter(ConnectionString.MASK::equals).isPresent()) {
                problems.add(new FieldProblem("connStr", "the password is the mask " + ConnectionString.MASK
                        + " and there is no stored password to keep; give the real password"));
            }
        } catch (InvalidConnectionStringException e) {
            problems.add(new FieldProblem("connStr", e.getMessage()));
        }
    }

    @Override
    public boolean selectsDatabases() {
        return selectsDatabases;
    }
}
