package io.pgharvest.operations;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import io.pgharvest.model.BoundedText;

/**
 * Copies each logging event into the {@link LogRing}. Unsynchronized: the ring takes its own
 * short lock, and Logback's synchronized base would pin virtual threads' carriers on JDK 21-23.
 * Only the first line of a throwable is kept (its class and message), not the stack. A line's
 * source, when it names one, goes along so the ring can count its cause's sources.
 *
 * <p>Logback may stop this appender and take it off the root logger without asking: Spring Boot
 * stops and resets the one Logback context of the JVM whenever an application starts after another
 * one closed (tests start many). Until {@link #close()}, {@link #reattach()} puts it back
 * ({@link LogRingReattachment} calls it after each such start).
 */
final class LogRingAppender extends UnsynchronizedAppenderBase<ILoggingEvent> {

    static final String NAME = "pgharvest-log-ring";

    private final LogRing ring;
    private final Logger root;
    private volatile boolean closed;

    LogRingAppender(LogRing ring, Logger root) {
        this.ring = ring;
        this.root = root;
        setName(NAME);
        setContext(root.getLoggerContext());
    }

    /** Starts the appender and adds it to the root logger, unless it is there already or closed. */
    void reattach() {
        if (closed || root.isAttached(this)) {
            return;
        }
        start();
        root.addAppender(this);
    }

    /** Takes the appender off the root logger for good (its application context is closing). */
    void close() {
        closed = true;
        LogRingReattachment.unregister(this);
        root.detachAppender(this);
        stop();
    }

    @Override
    protected void append(ILoggingEvent event) {
        String message = BoundedText.of(event.getFormattedMessage());
        IThrowableProxy thrown = event.getThrowableProxy();
        if (thrown != null) {
            message = message + " (" + thrown.getClassName() + ": " + BoundedText.of(thrown.getMessage()) + ")";
        }
        ring.append(event.getInstant(), event.getLevel().toString(), event.getLoggerName(), event.getThreadName(),
                message, sourceOf(event));
    }

    /**
     * The source a line is about: pgharvest's code logs a source's events as "Source {}..." with the
     * name as the first argument (the reapers, the session keeper, the metric ledger, discovery).
     */
    static String sourceOf(ILoggingEvent event) {
        String pattern = event.getMessage();
        Object[] arguments = event.getArgumentArray();
        if (pattern != null && pattern.startsWith("Source {}") && arguments != null && arguments.length > 0
                && arguments[0] != null) {
            return arguments[0].toString();
        }
        return null;
    }
}
