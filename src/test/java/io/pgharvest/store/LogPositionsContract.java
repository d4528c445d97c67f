package io.pgharvest.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.store.LogPositions.LogPosition;
import org.junit.jupiter.api.Test;

/** What every store's log read positions do: a restart (a new instance on the same storage) finds the last one saved. */
public abstract class LogPositionsContract {

    /** A new instance on the storage of this test (the same storage each call: a restart). */
    protected abstract LogPositions open();

    @Test
    void aSourceNeverReadHasNoPosition() {
        assertThat(open().find("never-read")).isEmpty();
    }

    @Test
    void theLastSavedPositionOfEachSourceSurvivesARestart() {
        LogPositions before = open();
        before.save("a", new LogPosition("csvlog", "postgresql-1.csv", 100));
        before.save("a", new LogPosition("csvlog", "postgresql-2.csv", 42));
        before.save("b", new LogPosition("stderr", "postgresql-1.log", 7));

        LogPositions after = open();
        assertThat(after.find("a")).contains(new LogPosition("csvlog", "postgresql-2.csv", 42));
        assertThat(after.find("b")).contains(new LogPosition("stderr", "postgresql-1.log", 7));
    }

    @Test
    void aPositionNeedsAFormatAFileAndAnOffsetOfZeroOrMore() {
        assertThatThrownBy(() -> new LogPosition("csvlog", "f.csv", -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LogPosition(null, "f.csv", 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
