package io.pgharvest.embedded;

/**
 * One PostgreSQL server process behind {@link TestPostgres}; the superuser {@code postgres} can
 * log in from the local host without a password.
 */
public interface PostgresServer extends AutoCloseable {

    String host();

    /** The port, which stays the same across {@link #stop()} and {@link #start()}. */
    int port();

    /** Fast shutdown (active sessions are terminated); no effect when already stopped. */
    void stop();

    /** Starts the stopped server again on the same data and port; no effect when running. */
    void start();

    boolean isRunning();

    /** Replaces a file the server reads (its path as the server sees it), e.g. pg_hba.conf. */
    void writeServerFile(String serverPath, String content);

    /** Stops the server and removes its data; idempotent. */
    @Override
    void close();
}
