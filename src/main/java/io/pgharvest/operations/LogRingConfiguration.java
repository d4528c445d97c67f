package io.pgharvest.operations;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Bounds what Logback writes ({@link BoundedLogOutput}) and attaches the {@link LogRingAppender}
 * to Logback's root logger, so the log view sees what the
 * console output sees (from the moment this bean is created; earlier start-up lines are only in
 * the process output). Put back by {@link LogRingReattachment} when another application's start
 * resets Logback, and detached for good when the context closes, so a test that starts several
 * applications in one JVM keeps each open ring fed and does not feed a closed one.
 */
@Configuration(proxyBeanMethods = false)
class LogRingConfiguration {

    @Bean
    LogRing logRing(LogViewProperties properties) {
        return new LogRing(properties.maxLines(), properties.maxBytes().toBytes());
    }

    @Bean(destroyMethod = "close")
    LogRingAppender logRingAppender(LogRing ring) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            throw new IllegalStateException("the log view needs Logback as the logging system");
        }
        BoundedLogOutput.install(context);
        var appender = new LogRingAppender(ring, context.getLogger(Logger.ROOT_LOGGER_NAME));
        appender.reattach();
        LogRingReattachment.register(appender);
        return appender;
    }

}
