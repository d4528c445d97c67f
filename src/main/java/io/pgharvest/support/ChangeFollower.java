package io.pgharvest.support;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One virtual thread that follows a {@link ChangeNotifier}: each time its index moves past the
 * one last applied, {@link Apply#apply} runs; a failure is logged and the next change is applied
 * as usual. Interrupting the thread ends it.
 */
public final class ChangeFollower {

    private static final Logger log = LoggerFactory.getLogger(ChangeFollower.class);
    /** A wait wakes now and then without a change, so a follower never parks for good on a lost signal. */
    private static final Duration WAIT = Duration.ofMinutes(1);

    /** What a change makes the follower do. */
    @FunctionalInterface
    public interface Apply {
        /**
         * @param index the notifier's index that woke the follower
         * @return the index now applied (the same, or a later one the action read)
         */
        long apply(long index);
    }

    private ChangeFollower() {
    }

    /**
     * Starts following {@code changes} from {@code applied} on a virtual thread named {@code name}.
     *
     * @param failure what the log says when {@code apply} fails (it is retried at the next change)
     */
    public static Thread start(String name, ChangeNotifier changes, long applied, Apply apply, String failure) {
        return Thread.ofVirtual().name(name).start(() -> follow(changes, applied, apply, failure));
    }

    private static void follow(ChangeNotifier changes, long applied, Apply apply, String failure) {
        long seen = applied;
        while (!Thread.currentThread().isInterrupted()) {
            try {
                long index = changes.awaitAbove(seen, WAIT);
                if (index != seen) {
                    seen = apply.apply(index);
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.error("{}; will retry on the next change", failure, e);
            }
        }
    }
}
