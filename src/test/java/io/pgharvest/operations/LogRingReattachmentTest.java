package io.pgharvest.operations;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.BoundedText;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Configuration;

/**
 * A log ring keeps receiving lines when another application starts in the same JVM: Spring Boot
 * stops and resets Logback on such a start (after an earlier application closed, as test classes
 * with contexts of their own do), which takes every appender off the root logger.
 */
@Tag("fast")
class LogRingReattachmentTest {

    @Configuration(proxyBeanMethods = false)
    static class Nothing {
    }

    private static void startAndCloseAnotherApplication() {
        new SpringApplicationBuilder(Nothing.class).web(WebApplicationType.NONE)
                .properties("spring.main.banner-mode=off").run().close();
    }

    private static boolean ringHas(LogRing ring, String message) {
        return ring.after(0, Integer.MAX_VALUE).stream().anyMatch(line -> line.message().equals(message));
    }

    @Test
    void anOpenRingIsFedAgainAfterOtherApplicationsResetLogback() {
        startAndCloseAnotherApplication(); // logging initialized once, then marked uninitialized
        var ring = new LogRing(100, Long.MAX_VALUE);
        LogRingAppender appender = new LogRingConfiguration().logRingAppender(ring);
        try {
            LoggerFactory.getLogger(LogRingReattachmentTest.class).warn("before the other start");
            startAndCloseAnotherApplication(); // stops and resets Logback: the appender is detached
            startAndCloseAnotherApplication();
            LoggerFactory.getLogger(LogRingReattachmentTest.class).warn("after the other starts");

            assertThat(ringHas(ring, "before the other start")).isTrue();
            assertThat(ringHas(ring, BoundedText.of("after the other starts"))).isTrue();
        } finally {
            appender.close();
        }
    }

    @Test
    void aClosedRingIsNotFedAgain() {
        var ring = new LogRing(100, Long.MAX_VALUE);
        LogRingAppender appender = new LogRingConfiguration().logRingAppender(ring);
        appender.close();
        startAndCloseAnotherApplication();
        LoggerFactory.getLogger(LogRingReattachmentTest.class).warn("after the ring closed");

        assertThat(ringHas(ring, "after the ring closed")).isFalse();
        assertThat(appender.isStarted()).isFalse();
    }
}
