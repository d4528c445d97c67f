package io.pgharvest.reaper;

import java.sql.SQLException;

/** The session to a source is gone (connection lost, server shut down, backend terminated). */
final class SourceDownException extends Exception {

    SourceDownException(String source, SQLException cause) {
        super("source " + source + ": session lost [SQLState " + cause.getSQLState() + "]: "
                + cause.getMessage(), cause);
    }
}
