package io.pgharvest.kind.pooler;

import com.ongres.scram.client.ScramClient;
import com.ongres.scram.common.StringPreparation;
import com.ongres.scram.common.exception.ScramException;
import com.ongres.scram.common.exception.ScramInvalidServerSignatureException;
import com.ongres.scram.common.exception.ScramServerErrorException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.List;

/**
 * One SASL login of a pooler console, done by {@code com.ongres.scram} (the SCRAM client pgjdbc
 * uses for PostgreSQL itself): this class only carries the messages and turns the library's
 * failures into SQLExceptions with SQLSTATE 28P01.
 *
 * <p>Settings, as libpq and pgjdbc log in: no channel binding ({@code n,,}: the console session's
 * TLS, when there is one, is not bound), the user name left to the startup packet ({@code *}),
 * the password prepared as PostgreSQL prepares it (SASLprep, the password as it is when SASLprep
 * refuses it), so a non-ASCII password logs in where the server set it.
 */
final class ScramLogin {

    static final String SHA_256 = "SCRAM-SHA-256";
    private static final String AUTH_FAILED = "28P01";

    private final ScramClient client;

    private ScramLogin(ScramClient client) {
        this.client = client;
    }

    /**
     * Starts a login with the mechanisms the server offers.
     *
     * @throws SQLException 08001 when the server offers no mechanism the library speaks without channel binding
     */
    static ScramLogin start(List<String> mechanisms, String password, String cannotConnect) throws SQLException {
        try {
            return new ScramLogin(ScramClient.builder().advertisedMechanisms(mechanisms).username("*")
                    .password(password.toCharArray()).stringPreparation(StringPreparation.POSTGRESQL_PREPARATION)
                    .build());
        } catch (IllegalArgumentException e) {
            throw new SQLException("the server offers only SASL mechanisms " + mechanisms
                    + "; pgharvest's console client speaks " + SHA_256, cannotConnect, e);
        }
    }

    /** The mechanism chosen, to name in the SASLInitialResponse. */
    String mechanism() {
        return client.getScramMechanism().getName();
    }

    String clientFirstMessage() {
        return client.clientFirstMessage().toString();
    }

    /** Answers the server-first-message with the client proof. */
    String clientFinalMessage(byte[] serverFirst) throws SQLException {
        try {
            client.serverFirstMessage(new String(serverFirst, StandardCharsets.UTF_8));
            return client.clientFinalMessage().toString();
        } catch (ScramException | IllegalArgumentException | IllegalStateException e) {
            throw new SQLException("the server's SCRAM answer is invalid: " + e.getMessage(), AUTH_FAILED, e);
        }
    }

    /** Checks that the server knew the password too (it signs the exchange with the server key). */
    void verifyServerFinal(byte[] serverFinal) throws SQLException {
        try {
            client.serverFinalMessage(new String(serverFinal, StandardCharsets.UTF_8));
        } catch (ScramServerErrorException e) {
            throw new SQLException("SCRAM authentication failed: " + e.getMessage(), AUTH_FAILED, e);
        } catch (ScramInvalidServerSignatureException e) {
            throw new SQLException("the server's SCRAM signature is wrong: it does not know the password",
                    AUTH_FAILED, e);
        } catch (ScramException | IllegalArgumentException | IllegalStateException e) {
            throw new SQLException("the server's SCRAM answer is invalid: " + e.getMessage(), AUTH_FAILED, e);
        }
    }
}
