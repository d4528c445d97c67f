package io.pgharvest.api;

import io.pgharvest.support.ChangeNotifier;
import jakarta.servlet.ServletException;
import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;

/**
 * The blocking queries parked now, so that closing the application answers them at once. Without
 * this a parked query waits out its {@code wait} (5 minutes by default) while the web server's
 * graceful shutdown waits for it: with 500 parked, pgharvest did not stop within 30 s of SIGTERM.
 * From the context's closed event on (before any component stops), every parked query returns as
 * if its wait had passed, and a new one does not park; the status endpoints then answer 503
 * ({@code ShutdownUnderway}), the others their unchanged data.
 *
 * <p>A query is woken by interrupting its thread, and only while it is parked on a notifier: the
 * thread registers and leaves under one lock and clears a late interrupt as it leaves, so no
 * interrupt can reach the request's socket I/O (an interrupted thread closes a channel it uses).
 */
@Component
public final class ParkedRequests implements ApplicationListener<ContextClosedEvent>, Ordered {

    /** The application serving the request on this thread, set by {@link WaiterLimitFilter}. */
    private static final ThreadLocal<ParkedRequests> SERVING = new ThreadLocal<>();

    /** A request's way through the filter chain. */
    @FunctionalInterface
    interface Chain {
        void proceed() throws IOException, ServletException;
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Set<Thread> parked = new HashSet<>();
    private boolean closing;

    /** Serves one blocking query: it parks, if it does, among this application's parked queries. */
    void serve(Chain chain) throws IOException, ServletException {
        SERVING.set(this);
        try {
            chain.proceed();
        } finally {
            SERVING.remove();
        }
    }

    /**
     * Waits on {@code notifier} as {@link ChangeNotifier#awaitAbove} does, unless the application
     * closes first: then it returns the notifier's index at once.
     */
    static long park(ChangeNotifier notifier, long seen, Duration patience) throws InterruptedException {
        ParkedRequests serving = SERVING.get();
        return serving == null ? notifier.awaitAbove(seen, patience) : serving.parkHere(notifier, seen, patience);
    }

    private long parkHere(ChangeNotifier notifier, long seen, Duration patience) throws InterruptedException {
        Thread self = Thread.currentThread();
        lock.lock();
        try {
            if (closing) {
                return notifier.index();
            }
            parked.add(self);
        } finally {
            lock.unlock();
        }
        try {
            return notifier.awaitAbove(seen, patience);
        } catch (InterruptedException e) {
            lock.lock();
            try {
                if (!closing) {
                    throw e; // not ours: the caller handles it
                }
            } finally {
                lock.unlock();
            }
            return notifier.index();
        } finally {
            lock.lock();
            try {
                parked.remove(self);
                if (closing) {
                    Thread.interrupted(); // an interrupt of ours that came after the wait ended
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** How many blocking queries are parked now. */
    int parkedCount() {
        lock.lock();
        try {
            return parked.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The last to hear that the application closes: a woken query must find the others' closing
     * state set (ShutdownUnderway's, which turns a status answer into a 503).
     */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        lock.lock();
        try {
            closing = true;
            parked.forEach(Thread::interrupt);
        } finally {
            lock.unlock();
        }
    }
}
