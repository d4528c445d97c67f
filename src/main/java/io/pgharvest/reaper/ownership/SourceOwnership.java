package io.pgharvest.reaper.ownership;

import io.pgharvest.model.SourceOwner;
import io.pgharvest.support.ChangeNotifier;
import java.time.Instant;
import java.util.Optional;

/**
 * Which sources this pgharvest instance collects, when several instances share one fleet. The
 * reaper service asks before it starts a reaper and reports when one has fully stopped, so that
 * an implementation can hand a source to another instance only after its reaper here is gone
 * (fencing: never two reapers for one source across the fleet).
 */
public interface SourceOwnership {

    /** A single instance: it collects every enabled source. */
    SourceOwnership ALL = new SourceOwnership() {
        private final ChangeNotifier never = new ChangeNotifier(0);

        @Override
        public boolean acquire(String source) {
            return true;
        }

        @Override
        public boolean holds(String source) {
            return true;
        }

        @Override
        public void released(String source, Instant lastTick) {
        }

        @Override
        public ChangeNotifier changes() {
            return never;
        }
    };

    /**
     * Called before a reaper for {@code source} starts; true lets it start and counts it as
     * running until {@link #released}. Atomic with a concurrent hand-over of the source.
     */
    boolean acquire(String source);

    /** Whether a running reaper for {@code source} may keep running; false: stop it. */
    boolean holds(String source);

    /**
     * The reaper of an {@linkplain #acquire acquired} source has stopped (its last tick is over).
     *
     * @param lastTick when that reaper's last tick started; null if it never ticked
     */
    void released(String source, Instant lastTick);

    /**
     * For a source just {@linkplain #acquire acquired} from another instance: when that instance
     * last ticked it, so the new reaper can run a grid point the hand-over passed; null if unknown.
     */
    default Instant previousTick(String source) {
        return null;
    }

    /** Advanced whenever {@link #holds} may have changed for some source. */
    ChangeNotifier changes();

    /** Which instance of the fleet collects {@code source}; empty without a fleet or before the first lease read. */
    default Optional<SourceOwner> owner(String source) {
        return Optional.empty();
    }
}
