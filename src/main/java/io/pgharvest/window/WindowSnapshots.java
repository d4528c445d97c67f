package io.pgharvest.window;

import io.pgharvest.support.AtomicFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The window's own snapshot in the data directory, so a restart (even {@code kill -9}) shows the
 * last span's charts at once: {@link #restore()} once before the feed records anything, then a
 * virtual thread writes the whole window every {@code every} (replaced atomically, owner-only) and
 * once more when stopped ({@code every} 0: neither). A file that is not a whole snapshot is dropped with one log line and the
 * window starts empty: a snapshot never fails a start.
 *
 * <p>Stopped after the {@link WindowFeed} (a lower phase), so the last write holds the last batch
 * the feed recorded.
 */
final class WindowSnapshots implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(WindowSnapshots.class);
    static final int PHASE = Integer.MAX_VALUE - 1024;

    private final RecentWindow window;
    private final Path file;
    private final Duration every;
    private final AtomicLong lastBytes = new AtomicLong();
    private final AtomicLong lastWriteNanos = new AtomicLong();
    private final AtomicLong failedWrites = new AtomicLong();
    private volatile Thread writer;

    WindowSnapshots(RecentWindow window, Path file, Duration every) {
        this.window = window;
        this.file = file;
        this.every = every;
    }

    /** Takes the file's points into the window; a missing file restores nothing, a bad one is dropped. */
    long restore() {
        if (every.isZero()) {
            return 0;
        }
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return 0;
        } catch (IOException e) {
            log.warn("The recent window's snapshot {} cannot be read ({}); the window starts empty", file, e.toString());
            return 0;
        }
        try {
            WindowPicture picture = WindowSnapshotFile.decode(bytes, window.budget().limit());
            long points = window.restore(picture);
            log.info("The recent window restored {} points of {} sources from its snapshot {}", points,
                    picture.sources().size(), file);
            return points;
        } catch (WindowSnapshotFile.UnreadableSnapshotException e) {
            log.warn("The recent window's snapshot {} is dropped, {}; the window starts empty", file, e.getMessage());
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // the next write replaces it anyway
            }
            return 0;
        }
    }

    /** Writes the window as it is now; false (logged) when the write failed. */
    boolean write() {
        long started = System.nanoTime();
        WindowPicture picture = window.picture();
        if (picture.sources().isEmpty() && !Files.exists(file)) {
            return true;
        }
        try {
            byte[] bytes = WindowSnapshotFile.encode(picture);
            AtomicFiles.write(file, bytes);
            lastBytes.set(bytes.length);
            lastWriteNanos.set(System.nanoTime() - started);
            return true;
        } catch (IOException | RuntimeException e) {
            // One line per failure, not per minute of silence: the count is on the meter.
            failedWrites.incrementAndGet();
            log.warn("The recent window's snapshot {} could not be written ({}); the next one is tried in {}", file,
                    e.toString(), every);
            return false;
        }
    }

    @Override
    public synchronized void start() {
        if (!every.isZero() && (writer == null || !writer.isAlive())) {
            writer = Thread.ofVirtual().name("window-snapshot").start(this::writeUntilStopped);
        }
    }

    private void writeUntilStopped() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(every);
            } catch (InterruptedException e) {
                return;
            }
            write();
        }
    }

    /** Ends the writer, then writes once more: a clean stop loses nothing of the window. */
    @Override
    public synchronized void stop() {
        Thread running = writer;
        writer = null;
        if (running != null) {
            running.interrupt();
            try {
                running.join(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            write();
        }
    }

    @Override
    public boolean isRunning() {
        Thread running = writer;
        return running != null && running.isAlive();
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** The size of the last snapshot written, bytes. */
    long lastBytes() {
        return lastBytes.get();
    }

    /** How long the last write took (copy, encode, fsync and rename), seconds. */
    double lastWriteSeconds() {
        return lastWriteNanos.get() / 1e9;
    }

    long failedWrites() {
        return failedWrites.get();
    }
}
