package io.pgharvest.testsupport;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import io.pgharvest.embedded.PostgresBinaries;
import io.pgharvest.embedded.ServerAccount;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * An etcd (v3 API) and a Patroni cluster of loopback members, each member a PostgreSQL 15 from
 * Debian's packages ({@value #PG_BIN}) managed by Debian's {@code patroni}, all in one temporary
 * directory. The programs are installed before the tests by src/test/setup/install-test-servers.sh;
 * {@link #start} fails (never skips) when one is missing. Servers run as the same unprivileged
 * account as the embedded PostgreSQL, since PostgreSQL refuses to run as root.
 *
 * <p>Members are named {@code m1}, {@code m2}, ... in scope {@value #SCOPE} under namespace
 * {@value #NAMESPACE}; {@code m1} bootstraps and leads. Loopback logins need scram passwords:
 * superuser {@value #SUPERUSER} / {@value #SUPERUSER_PASSWORD}. Patroni's loop runs every second
 * so that role changes reach the DCS quickly.
 */
public final class TestPatroniCluster implements AutoCloseable {

    public static final String SCOPE = "pgharvest";
    public static final String NAMESPACE = "/service/";
    public static final String SUPERUSER = "postgres";
    public static final String SUPERUSER_PASSWORD = "su-secret";
    static final String PG_BIN = "/usr/lib/postgresql/15/bin";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** One Patroni member: its name, PostgreSQL port and REST API port. */
    public record Member(String name, int pgPort, int apiPort) {
        public String apiUrl() {
            return "http://127.0.0.1:" + apiPort;
        }
    }

    private final Path dir;
    private final ServerAccount account;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final List<Process> processes = new ArrayList<>();
    private final java.util.Map<String, Process> memberProcesses = new java.util.HashMap<>();
    private final List<Member> members = new ArrayList<>();
    private int etcdPort;

    private TestPatroniCluster(Path dir, ServerAccount account) {
        this.dir = dir;
        this.account = account;
    }

    /**
     * Starts etcd and {@code size} members, and returns once m1 leads and every other member
     * replicates; {@code start(0)} runs etcd alone.
     */
    public static TestPatroniCluster start(int size) {
        Path patroni = InstalledPrograms.require("patroni");
        Path etcd = InstalledPrograms.require("etcd");
        if (!Files.isExecutable(Path.of(PG_BIN, "postgres"))) {
            throw new IllegalStateException("PostgreSQL 15 server binaries are missing in " + PG_BIN
                    + ": install Debian's postgresql-15 package");
        }
        ServerAccount account = ServerAccount.detect();
        TestPatroniCluster cluster;
        try {
            Path dir = Files.createTempDirectory("pgharvest-patroni-");
            account.handOver(dir);
            cluster = new TestPatroniCluster(dir, account);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the cluster's directory", e);
        }
        try {
            cluster.startEtcd(etcd);
            for (int i = 1; i <= size; i++) {
                Member member = new Member("m" + i, freePort(), freePort());
                cluster.startMember(patroni, member);
                cluster.members.add(member);
                cluster.awaitRole(member, i == 1 ? "leader" : "replica", START_TIMEOUT);
            }
            return cluster;
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw e instanceof RuntimeException r ? r : new UncheckedIOException((IOException) e);
        }
    }

    /** etcd's client endpoint, host:port. */
    public String etcdEndpoint() {
        return "127.0.0.1:" + etcdPort;
    }

    /** etcd's client URL, for tests that talk to etcd's v3 JSON gateway themselves. */
    public URI etcdUrl() {
        return URI.create("http://" + etcdEndpoint());
    }

    public List<Member> members() {
        return List.copyOf(members);
    }

    public Member member(String name) {
        return members.stream().filter(m -> m.name().equals(name)).findFirst().orElseThrow();
    }

    /** The member that holds the leader lock now, per Patroni's REST API; empty during a change. */
    public Optional<String> leader() {
        for (Member member : members) {
            try {
                for (JsonNode node : cluster(member).path("members")) {
                    if ("leader".equals(node.path("role").asString())) {
                        return Optional.of(node.path("name").asString());
                    }
                }
                return Optional.empty();
            } catch (IOException e) {
                // ask the next member
            }
        }
        return Optional.empty();
    }

    /**
     * Switches the leader over to {@code candidate} through Patroni's REST API and returns when
     * Patroni reports it done (the candidate has been promoted).
     */
    public void switchover(String candidate) throws IOException {
        String current = leader().orElseThrow(() -> new IllegalStateException("the cluster has no leader"));
        String body = JSON.writeValueAsString(java.util.Map.of("leader", current, "candidate", candidate));
        HttpRequest request = HttpRequest.newBuilder(URI.create(member(current).apiUrl() + "/switchover"))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        HttpResponse<String> response = send(request);
        if (response.statusCode() != 200) {
            throw new IllegalStateException("switchover to " + candidate + " failed: HTTP " + response.statusCode()
                    + " " + response.body());
        }
    }

    /** Waits until {@code member} reports {@code role} ("leader" or "replica") and state "running". */
    public void awaitRole(Member member, String role, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                for (JsonNode node : cluster(member).path("members")) {
                    if (node.path("name").asString().equals(member.name()) && role.equals(node.path("role").asString())
                            && "running".equals(node.path("state").asString())) {
                        return;
                    }
                }
            } catch (IOException notYet) {
                // the REST API is not up yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("member " + member.name() + " did not become a running " + role
                        + " within " + timeout + ":\n" + tail(dir.resolve(member.name() + ".log")));
            }
            pause();
        }
    }

    private JsonNode cluster(Member member) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(member.apiUrl() + "/cluster"))
                .timeout(Duration.ofSeconds(2)).GET().build();
        HttpResponse<String> response = send(request);
        if (response.statusCode() != 200) {
            throw new IOException("HTTP " + response.statusCode());
        }
        return JSON.readTree(response.body());
    }

    private HttpResponse<String> send(HttpRequest request) throws IOException {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private void startEtcd(Path etcd) throws IOException {
        etcdPort = freePort();
        int peerPort = freePort();
        String client = "http://127.0.0.1:" + etcdPort;
        String peer = "http://127.0.0.1:" + peerPort;
        Path data = dir.resolve("etcd");
        launch("etcd", List.of(etcd.toString(), "--name", "test", "--data-dir", data.toString(),
                "--listen-client-urls", client, "--advertise-client-urls", client,
                "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                "--initial-cluster", "test=" + peer));
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            try {
                HttpResponse<String> health = send(HttpRequest.newBuilder(URI.create(client + "/health"))
                        .timeout(Duration.ofSeconds(2)).GET().build());
                if (health.statusCode() == 200 && health.body().contains("true")) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (System.nanoTime() > deadline || !processes.getLast().isAlive()) {
                throw new IllegalStateException("etcd did not start:\n" + tail(dir.resolve("etcd.log")));
            }
            pause();
        }
    }

    private void startMember(Path patroni, Member member) throws IOException {
        Path home = dir.resolve(member.name());
        Files.createDirectories(home);
        account.handOver(home);
        Path config = home.resolve("patroni.yml");
        Files.writeString(config, """
                scope: %1$s
                namespace: %2$s
                name: %3$s
                restapi:
                  listen: 127.0.0.1:%4$d
                  connect_address: 127.0.0.1:%4$d
                etcd3:
                  hosts: %5$s
                bootstrap:
                  dcs:
                    ttl: 20
                    loop_wait: 1
                    retry_timeout: 5
                    postgresql:
                      use_pg_rewind: false
                  initdb:
                    - encoding: UTF8
                    - auth-local: trust
                    - auth-host: scram-sha-256
                  pg_hba:
                    - local all all trust
                    - host replication replicator 127.0.0.1/32 scram-sha-256
                    - host all all 127.0.0.1/32 scram-sha-256
                postgresql:
                  listen: 127.0.0.1:%6$d
                  connect_address: 127.0.0.1:%6$d
                  data_dir: %7$s
                  bin_dir: %8$s
                  pgpass: %9$s
                  authentication:
                    replication: {username: replicator, password: rep-secret}
                    superuser: {username: %10$s, password: %11$s}
                  parameters:
                    unix_socket_directories: '%12$s'
                """.formatted(SCOPE, NAMESPACE, member.name(), member.apiPort(), etcdEndpoint(), member.pgPort(),
                home.resolve("data"), PG_BIN, home.resolve("pgpass"), SUPERUSER, SUPERUSER_PASSWORD, home),
                StandardCharsets.UTF_8);
        account.handOver(config);
        memberProcesses.put(member.name(), launch(member.name(), List.of(patroni.toString(), config.toString())));
    }

    /**
     * Stops a member's Patroni as an operator or a host shutdown would (SIGTERM): Patroni stops its
     * PostgreSQL and gives up the leader lock, so another member takes over (a failover without
     * Patroni's switchover API). Returns when the process has ended.
     */
    public void stopMember(String name) throws InterruptedException {
        Process process = memberProcesses.get(name);
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("member " + name + " did not stop within 60 s");
        }
    }

    private Process launch(String name, List<String> program) throws IOException {
        List<String> command = new ArrayList<>(account.commandPrefix());
        command.addAll(program);
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".log").toFile());
        builder.environment().put("HOME", dir.toString()); // nobody's home does not exist
        Process process = builder.start();
        processes.add(process);
        return process;
    }

    /** Stops the members first (Patroni stops its PostgreSQL on SIGTERM), then etcd. */
    @Override
    public void close() {
        for (Process process : processes.reversed()) {
            process.destroy();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        processes.clear();
        PostgresBinaries.deleteQuietly(dir);
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static void pause() {
        try {
            Thread.sleep(100); // polling an external server's state; there is nothing to await on
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }
}
