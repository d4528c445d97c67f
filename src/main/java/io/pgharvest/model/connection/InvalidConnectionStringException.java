package io.pgharvest.model.connection;

/**
 * A connection string that cannot be parsed. The message says what is wrong and where, and never
 * contains the password or any other part of the text that might be one.
 */
public class InvalidConnectionStringException extends IllegalArgumentException {

    public InvalidConnectionStringException(String message) {
        super("Invalid connection string: " + message);
    }
}
