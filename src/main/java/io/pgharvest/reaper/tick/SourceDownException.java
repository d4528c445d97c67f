package io.pgharvest.reaper.tick;

import io.pgharvest.model.BoundedText;
import java.sql.SQLException;

/** The session to a source is gone (connection lost, server shut down, backend terminated). */
public final class SourceDownException extends Exception {

    public SourceDownException(String source, SQLException cause) {
        super("source " + source + ": session lost [SQLState " + cause.getSQLState() + "]: "
                + BoundedText.messageOf(cause), cause);
    }
}
