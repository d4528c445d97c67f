package io.pgharvest.reaper.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.connection.ConnectionString;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class EarlyStartsTest {

    private final EarlyStarts early = new EarlyStarts();

    @Test
    void atMostEightFirstTicksPerServerRunEarlyAtOnceAndAFinishedOneMakesRoom() {
        var sameServer = new ArrayList<Runnable>();
        for (int db = 0; db < 20; db++) {
            sameServer.add(early.tryStart(conn("db.example", 5432, "db" + db)));
        }
        List<Runnable> granted = sameServer.stream().filter(r -> r != null).toList();
        assertThat(granted).hasSize(EarlyStarts.PER_SERVER);
        assertThat(early.tryStart(conn("other.example", 5432, "db0"))).isNotNull();
        assertThat(early.tryStart(conn("db.example", 5433, "db0"))).isNotNull();

        granted.getFirst().run();
        granted.getFirst().run(); // twice (tick over, then stop) frees one place only
        assertThat(early.tryStart(conn("db.example", 5432, "late"))).isNotNull();
        assertThat(early.tryStart(conn("db.example", 5432, "later"))).isNull();
    }

    /** The other sources of a server log in once its early first ticks are over; another server is not held. */
    @Test
    void aServerSettlesWhenItsLastEarlyFirstTickIsOver() {
        assertThat(early.settled(conn("db.example", 5432, "db0"))).as("no early tick yet").isDone();
        Runnable first = early.tryStart(conn("db.example", 5432, "db0"));
        Runnable second = early.tryStart(conn("db.example", 5432, "db1"));
        var settled = early.settled(conn("db.example", 5432, "db7"));
        assertThat(settled).isNotDone();
        assertThat(early.settled(conn("other.example", 5432, "db0"))).isDone();

        first.run();
        assertThat(settled).as("one early tick still runs").isNotDone();
        second.run();
        assertThat(settled).isDone();
        assertThat(early.settled(conn("db.example", 5432, "db7"))).isDone();
    }

    private static ConnectionString conn(String host, int port, String db) {
        return ConnectionString.parse("postgresql://monitor@" + host + ":" + port + "/" + db);
    }
}
