package io.pgharvest.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * What the harness must undo however it ends: processes to stop and directories to delete, undone
 * last-in first-out, at the end of a run or from a JVM shutdown hook (Ctrl-C, a failure).
 */
final class Cleanup {

    private final ReentrantLock lock = new ReentrantLock();
    private final Deque<Action> actions = new ArrayDeque<>();

    /** One undo step; failures are reported on stderr and do not stop the others. */
    interface Action {
        void undo() throws Exception;
    }

    Cleanup installShutdownHook() {
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("bench-cleanup").unstarted(this::runAll));
        return this;
    }

    /** Registers an undo step; returns a handle that runs it (once) when closed early. */
    AutoCloseable register(String description, Action action) {
        Action once = new Action() {
            private boolean done;

            @Override
            public void undo() throws Exception {
                lock.lock();
                try {
                    if (done) {
                        return;
                    }
                    done = true;
                    actions.remove(this);
                } finally {
                    lock.unlock();
                }
                try {
                    action.undo();
                } catch (Exception e) {
                    System.err.println("[bench] cleanup of " + description + " failed: " + e);
                }
            }
        };
        lock.lock();
        try {
            actions.push(once);
        } finally {
            lock.unlock();
        }
        return once::undo;
    }

    AutoCloseable deleteOnExit(Path directory) {
        return register("directory " + directory, () -> deleteRecursively(directory));
    }

    void runAll() {
        while (true) {
            Action next;
            lock.lock();
            try {
                next = actions.peek();
            } finally {
                lock.unlock();
            }
            if (next == null) {
                return;
            }
            try {
                next.undo();
            } catch (Exception e) {
                System.err.println("[bench] cleanup failed: " + e);
            }
        }
    }

    static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
