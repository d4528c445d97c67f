package io.pgharvest.source;

import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceConnection;
import io.pgharvest.model.StoreTable;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.store.InvalidConfigException;
import java.util.List;
import java.util.Objects;

/**
 * The API's read-modify-write rule for secrets: the API shows passwords as
 * {@link ConnectionString#MASK}, and a replace that sends the mask back means "keep the stored
 * password". That is only honoured while the password would still go to the same place: same
 * hosts and ports, user and database. A mask sent with a new destination is refused, so a
 * caller holding only the API token cannot redirect the stored secret to a server of its own.
 */
final class MaskedPassword {

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
        return given.withConnection(SourceConnection.of(requested.withPassword(current.password().get())));
    }

    private static boolean sameDestination(ConnectionString a, ConnectionString b) {
        return a.hosts().equals(b.hosts()) && Objects.equals(a.user(), b.user())
                && Objects.equals(a.database(), b.database())
                && Objects.equals(a.parameters().get("hostaddr"), b.parameters().get("hostaddr"));
    }
}
