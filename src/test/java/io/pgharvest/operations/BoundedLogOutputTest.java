package io.pgharvest.operations;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.OutputStreamAppender;
import io.pgharvest.model.BoundedText;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Whatever a library logs, Logback writes it bounded and escaped once the output is installed. */
@Tag("fast")
class BoundedLogOutputTest {

    @Test
    void messagesAndExceptionMessagesAreWrittenBoundedAndEscaped() {
        var context = new LoggerContext();
        context.setMDCAdapter(new LogbackMDCAdapter());
        var sink = new ByteArrayOutputStream();
        var encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("LINE %m%n%wEx");
        encoder.start();
        var appender = new OutputStreamAppender<ILoggingEvent>();
        appender.setContext(context);
        appender.setEncoder(encoder);
        appender.setOutputStream(sink);
        appender.start();
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.addAppender(appender);

        BoundedLogOutput.install(context);
        BoundedLogOutput.install(context); // a second context start in the same JVM changes nothing
        root.warn("driver says {}", "\u001b[31mred\nLINE forged".repeat(100_000),
                new IllegalStateException("cause\r\nLINE forged too " + "x".repeat(100_000)));
        appender.stop();

        String written = sink.toString(StandardCharsets.UTF_8);
        assertThat(written).startsWith("LINE driver says \\u001b[31mred\\nLINE forged").doesNotContain("\u001b")
                .contains("characters cut]", "java.lang.IllegalStateException: cause\\r\\nLINE forged too xxx");
        assertThat(written.lines().filter(line -> line.startsWith("LINE"))).hasSize(1);
        assertThat(written.lines()).allMatch(line -> line.length() <= BoundedText.MAX_CHARS + 100);
    }
}
