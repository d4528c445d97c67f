package io.pgharvest.source;

import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceConnection;
import io.pgharvest.model.StoreTable;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.store.InvalidConfigException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The API's read-modify-write rule for secrets: the API shows passwords as
 * {@link ConnectionString#MASK}, and a replace that sends the mask back means "keep the stored
 * password". That is only honoured while the password would still go to the same place: same
 * hosts and ports, user and database. A mask sent with a new destination is refused, so a
 * caller holding only the API token cannot redirect the stored secret to a server of its own.
 * Nor may the mask come with weaker protection on the way: a lower {@code sslmode},
 * {@code gssencmode} or {@code channel_binding} than the stored source's ({@link #DOWNGRADES}) would
 * send the stored password where it travels in clear (or to a server that never proves it knows
 * it), so it too needs the password sent again.
 */
final class MaskedPassword {

    /** Each protection's modes from weakest to strongest, with libpq's default when absent. */
    private record Protection(String parameter, List<String> modes, String absent) {
        int strength(ConnectionString connection) {
            return modes.indexOf(connection.parameters().getOrDefault(parameter, absent));
        }
    }

    private static final List<Protection> DOWNGRADES = List.of(
            new Protection("sslmode", List.of("disable", "allow", "prefer", "require", "verify-ca", "verify-full"),
                    "prefer"),
            new Protection("gssencmode", List.of("disable", "prefer", "require"), "prefer"),
            new Protection("channel_binding", List.of("disable", "prefer", "require"), "prefer"));

    private MaskedPassword() {
    }

    /**
     * {@code given} with the stored password in place of the mask, or {@code given} unchanged
     * when it carries no mask (or there is nothing stored: validation then refuses the mask).
     *
     * @throws InvalidConfigException naming {@code connStr} when the mask comes with a new destination
     */
    static Source keepStored(Source given, Source stored) {
        if (stored == null) {
            return given;
        }
        if (!(given.connection().parsed().orElse(null) instanceof ConnectionString requested
                && stored.connection().parsed().orElse(null) instanceof ConnectionString current)) {
            return given; // validation reports it, naming connStr
        }
        if (requested.password().filter(ConnectionString.MASK::equals).isEmpty() || current.password().isEmpty()) {
            return given;
        }
        if (!sameDestination(requested, current)) {
            throw new InvalidConfigException(StoreTable.SOURCES, given.name(), List.of(new FieldProblem("connStr",
                    "the password is the mask " + ConnectionString.MASK + " but the host, port, user or database"
                            + " changed; send the password for the new destination")));
        }
        var weaker = new ArrayList<FieldProblem>();
        for (Protection protection : DOWNGRADES) {
            if (protection.strength(requested) < protection.strength(current)) {
                weaker.add(new FieldProblem("connStr", "the password is the mask " + ConnectionString.MASK + " but "
                        + protection.parameter() + " is weaker than the stored source's ("
                        + protection.parameter() + "=" + current.parameters().getOrDefault(protection.parameter(),
                                protection.absent()) + "); send the password again to lower it"));
            }
        }
        if (!weaker.isEmpty()) {
            throw new InvalidConfigException(StoreTable.SOURCES, given.name(), weaker);
        }
        return given.withConnection(SourceConnection.of(requested.withPassword(current.password().get())));
    }

    private static boolean sameDestination(ConnectionString a, ConnectionString b) {
        return a.hosts().equals(b.hosts()) && Objects.equals(a.user(), b.user())
                && Objects.equals(a.database(), b.database())
                && Objects.equals(a.parameters().get("hostaddr"), b.parameters().get("hostaddr"));
    }
}
