package io.pgharvest.model;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.DcsAddress;
import io.pgharvest.model.connection.InvalidConnectionStringException;
import java.util.List;

/** A Patroni source names its DCS; the members' addresses come from there. */
final class DcsKindRules implements KindRules {

    @Override
    public void checkConnection(String connStr, List<FieldProblem> problems) {
        try {
            DcsAddress parsed = DcsAddress.parse(connStr);
            boolean masked = parsed.etcdPassword().filter(ConnectionString.MASK::equals).isPresent()
                    || ConnectionString.MASK.equals(parsed.memberParameters().get("password"));
            if (masked) {
                problems.add(new FieldProblem("connStr", "a password is the mask " + ConnectionString.MASK
                        + " and there is no stored password to keep; give the real password"));
            }
        } catch (InvalidConnectionStringException e) {
            problems.add(new FieldProblem("connStr", e.getMessage()));
        }
    }
}
