package io.pgharvest.store;

/**
 * The store could not be reached or refused a statement; nothing was changed. Part of the contract
 * because a caller answers it alike whichever store it has (the API: 503); the configuration
 * database's store ({@code store.postgres}) raises it. The message names the database by its masked
 * URL, never with its password.
 */
public class StoreUnavailableException extends RuntimeException {

    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
