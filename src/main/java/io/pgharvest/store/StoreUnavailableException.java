package io.pgharvest.store;

/**
 * The configuration database could not be reached or refused a statement; nothing was changed.
 * The message names the database by its masked URL, never with its password.
 */
public class StoreUnavailableException extends RuntimeException {

    StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
