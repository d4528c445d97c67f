package io.pgharvest.source;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.DcsAddress;
import io.pgharvest.model.connection.InvalidConnectionStringException;

/** The two places the API touches a connection string's password: masking it out, and merging one in. */
final class ConnStrSecrets {

    private ConnStrSecrets() {
    }

    /**
     * The connection string with its password replaced by {@link ConnectionString#MASK}. A string
     * that does not parse (only possible for a hand-edited file) is withheld entirely, since where
     * its password sits is unknown.
     */
    static String masked(String connStr) {
        try {
            if (DcsAddress.looksLikeDcs(connStr)) {
                return DcsAddress.parse(connStr).masked();
            }
            return ConnectionString.parse(connStr).masked();
        } catch (InvalidConnectionStringException e) {
            return ConnectionString.MASK;
        }
    }

    /**
     * {@code connStr} with {@code password} set, replacing any password it has; unchanged when
     * {@code password} is null, or when it does not parse (validation then reports {@code connStr}).
     */
    static String withPassword(String connStr, String password) {
        if (password == null) {
            return connStr;
        }
        try {
            if (DcsAddress.looksLikeDcs(connStr)) {
                return DcsAddress.parse(connStr).withMemberPassword(password).render(); // the members' password
            }
            return ConnectionString.parse(connStr).withPassword(password).render();
        } catch (InvalidConnectionStringException e) {
            return connStr;
        }
    }
}
