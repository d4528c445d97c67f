package io.pgharvest.testsupport;

import io.pgharvest.embedded.PostgresServer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.testcontainers.images.builder.Transferable;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A PostgreSQL server in Docker ({@code postgres:<major>}) via Testcontainers, for machines that
 * have Docker and want the distribution's own build.
 *
 * <p>{@link #stop()} and {@link #start()} are not supported: Docker maps a new host port when a
 * container starts again, which breaks the same-port contract restart tests rely on.
 */
final class ContainerPostgres implements PostgresServer {

    private final PostgreSQLContainer container;

    private ContainerPostgres(PostgreSQLContainer container) {
        this.container = container;
    }

    static ContainerPostgres launch(int majorVersion, Map<String, String> serverSettings) {
        List<String> command = new ArrayList<>(List.of("postgres", "-c", "fsync=off"));
        serverSettings.forEach((name, value) -> command.addAll(List.of("-c", name + "=" + value)));
        PostgreSQLContainer container = new PostgreSQLContainer(DockerImageName.parse("postgres:" + majorVersion))
                .withUsername("postgres")
                .withPassword("postgres")
                .withDatabaseName("postgres")
                // Same contract as the embedded server: the superuser logs in without a password.
                .withEnv("POSTGRES_HOST_AUTH_METHOD", "trust");
        container.setCommand(command.toArray(String[]::new));
        container.start();
        return new ContainerPostgres(container);
    }

    @Override
    public String host() {
        return container.getHost();
    }

    @Override
    public int port() {
        return container.getMappedPort(PostgreSQLContainer.POSTGRESQL_PORT);
    }

    @Override
    public void stop() {
        throw restartUnsupported();
    }

    @Override
    public void start() {
        throw restartUnsupported();
    }

    @Override
    public boolean isRunning() {
        return container.isRunning();
    }

    @Override
    public void writeServerFile(String serverPath, String content) {
        container.copyFileToContainer(Transferable.of(content), serverPath);
    }

    @Override
    public void close() {
        container.stop();
    }

    private static UnsupportedOperationException restartUnsupported() {
        return new UnsupportedOperationException("stop/start needs the embedded test PostgreSQL "
                + "(-Dpgharvest.test.postgres=embedded): a restarted container gets a new port");
    }
}
