package io.pgharvest.reaper;

import io.pgharvest.support.ChangeNotifier;

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
        public void released(String source) {
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

    /** The reaper of an {@linkplain #acquire acquired} source has stopped (its last tick is over). */
    void released(String source);

    /** Advanced whenever {@link #holds} may have changed for some source. */
    ChangeNotifier changes();
}
