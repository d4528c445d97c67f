package io.pgharvest.history;

/**
 * A store could not answer a read: slow (its timeout), down, or refusing. The message names what
 * was read and why, never a secret; the answer shows it beside what else was read.
 */
public class HistoryReadException extends Exception {

    public HistoryReadException(String message, Throwable cause) {
        super(message, cause);
    }
}
