package io.pgharvest.operations;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.StackTraceElementProxy;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.pattern.DynamicConverter;
import io.pgharvest.model.BoundedText;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.boot.logging.logback.ExtendedWhitespaceThrowableProxyConverter;

/**
 * The last wall between a foreign text and the log output: every message and every exception
 * message Logback writes through a pattern (the console and {@code logging.file.name}) is cut
 * and escaped by {@link BoundedText}, whoever logged it (pgharvest, a driver, a library). The
 * places that keep a server's text bound it themselves first; this catches what they missed.
 *
 * <p>Spring Boot configures Logback in code (no XML, so no Joran classes loaded); its pattern
 * words {@code %m} and {@code %wEx} are re-bound here to bounded converters, and each pattern
 * encoder of the root logger's appenders is replaced by one built with them. Lines logged before
 * this runs (early start-up, before any source is read) went out unchanged.
 */
final class BoundedLogOutput {

    private BoundedLogOutput() {
    }

    /** Re-binds the message and exception words in {@code context} and renews the root appenders' encoders. */
    static void install(LoggerContext context) {
        registerConverters(context);
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        for (var appenders = root.iteratorForAppenders(); appenders.hasNext();) {
            Appender<ILoggingEvent> appender = appenders.next();
            if (appender instanceof OutputStreamAppender<ILoggingEvent> stream
                    && stream.getEncoder() instanceof PatternLayoutEncoder encoder && !(encoder instanceof Renewed)) {
                var renewed = new Renewed();
                renewed.setContext(context);
                renewed.setPattern(encoder.getPattern());
                renewed.setCharset(encoder.getCharset());
                renewed.start();
                stream.setEncoder(renewed);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static void registerConverters(LoggerContext context) {
        var rules = (Map<String, Supplier<DynamicConverter<?>>>) context.getObject(
                CoreConstants.PATTERN_RULE_REGISTRY_FOR_SUPPLIERS);
        if (rules == null) {
            rules = new HashMap<>();
            context.putObject(CoreConstants.PATTERN_RULE_REGISTRY_FOR_SUPPLIERS, rules);
        }
        for (String word : new String[] {"m", "msg", "message"}) {
            rules.put(word, MessageConverter::new);
        }
        for (String word : new String[] {"wEx", "wex", "ex", "exception", "throwable", "xEx", "xException",
                "xThrowable"}) {
            rules.put(word, ThrowableConverter::new);
        }
    }

    /** A pattern encoder built after the converters were re-bound (so {@link #install} renews each once). */
    static final class Renewed extends PatternLayoutEncoder {
    }

    /** {@code %m}: the formatted message, bounded and escaped. */
    public static final class MessageConverter extends ClassicConverter {
        @Override
        public String convert(ILoggingEvent event) {
            return BoundedText.of(event.getFormattedMessage());
        }
    }

    /** {@code %wEx}: Spring Boot's stack trace, each exception's message bounded and escaped. */
    public static final class ThrowableConverter extends ExtendedWhitespaceThrowableProxyConverter {
        @Override
        protected String throwableProxyToString(IThrowableProxy thrown) {
            return super.throwableProxyToString(new BoundedThrowable(thrown));
        }
    }

    /** An exception as Logback sees it, with its messages (and its causes' and suppressed ones') bounded. */
    private record BoundedThrowable(IThrowableProxy thrown) implements IThrowableProxy {
        @Override
        public String getMessage() {
            return BoundedText.of(thrown.getMessage());
        }

        @Override
        public String getOverridingMessage() {
            return BoundedText.of(thrown.getOverridingMessage());
        }

        @Override
        public String getClassName() {
            return thrown.getClassName();
        }

        @Override
        public StackTraceElementProxy[] getStackTraceElementProxyArray() {
            return thrown.getStackTraceElementProxyArray();
        }

        @Override
        public int getCommonFrames() {
            return thrown.getCommonFrames();
        }

        @Override
        public IThrowableProxy getCause() {
            return thrown.getCause() == null ? null : new BoundedThrowable(thrown.getCause());
        }

        @Override
        public IThrowableProxy[] getSuppressed() {
            IThrowableProxy[] suppressed = thrown.getSuppressed();
            if (suppressed == null) {
                return null;
            }
            var bounded = new IThrowableProxy[suppressed.length];
            for (int i = 0; i < suppressed.length; i++) {
                bounded[i] = new BoundedThrowable(suppressed[i]);
            }
            return bounded;
        }

        @Override
        public boolean isCyclic() {
            return thrown.isCyclic();
        }
    }
}
