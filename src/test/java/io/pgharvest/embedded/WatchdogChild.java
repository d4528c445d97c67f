package io.pgharvest.embedded;

import java.util.Map;

/** Child JVM of {@link ParentWatchdogTest}: starts an embedded server with a watchdog, prints its pid and directory, waits. */
public final class WatchdogChild {

    private WatchdogChild() {
    }

    public static void main(String[] args) throws Exception {
        EmbeddedPostgres server = EmbeddedPostgres.launch(Map.of());
        server.watchParent();
        System.out.println("postmaster " + server.postmasterPid() + " " + server.instanceDir());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
