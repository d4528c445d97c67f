package io.pgharvest.api;

import io.pgharvest.PgharvestApplication;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/** A pgharvest started by a test itself, for restarts on the same data directory. */
public final class RunningApp implements AutoCloseable {

    public static final String TOKEN = "restart-token-0123456789";

    private final ConfigurableApplicationContext context;

    private RunningApp(ConfigurableApplicationContext context) {
        this.context = context;
    }

    /** Starts with {@link #TOKEN} as pgharvest.api.token. */
    public static RunningApp start(Path dataDir) {
        return run(dataDir, "--pgharvest.api.token=" + TOKEN);
    }

    /** Starts with {@link #TOKEN} and further {@code --property=value} arguments. */
    public static RunningApp start(Path dataDir, String... extraArguments) {
        List<String> arguments = new ArrayList<>(List.of(extraArguments));
        arguments.add("--pgharvest.api.token=" + TOKEN);
        return run(dataDir, arguments.toArray(String[]::new));
    }

    /**
     * Starts with {@link #TOKEN} on {@code port} and further arguments: a restart on the same port
     * is the same collector again for a client that keeps its address (a console page left open).
     */
    public static RunningApp startOnPort(Path dataDir, int port, String... extraArguments) {
        List<String> arguments = new ArrayList<>(List.of(extraArguments));
        arguments.add("--pgharvest.api.token=" + TOKEN);
        return run(dataDir, port, arguments.toArray(String[]::new));
    }

    /** Starts without pgharvest.api.token, so the application uses its generated token file. */
    public static RunningApp startWithGeneratedToken(Path dataDir) {
        return run(dataDir);
    }

    private static RunningApp run(Path dataDir, String... extraArguments) {
        return run(dataDir, 0, extraArguments);
    }

    private static RunningApp run(Path dataDir, int port, String... extraArguments) {
        List<String> arguments = new ArrayList<>(List.of("--server.port=" + port, "--pgharvest.data-dir=" + dataDir,
                "--spring.main.banner-mode=off"));
        arguments.addAll(List.of(extraArguments));
        return new RunningApp(SpringApplication.run(PgharvestApplication.class, arguments.toArray(String[]::new)));
    }

    int port() {
        return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
    }

    public ApiClient api() {
        return new ApiClient(Integer.parseInt(context.getEnvironment().getProperty("local.server.port")), TOKEN);
    }

    public <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    @Override
    public void close() {
        context.close();
    }
}
