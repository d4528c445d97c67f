package io.pgharvest.operations;

import ch.qos.logback.classic.LoggerContext;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.logging.LoggingApplicationListener;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;

/**
 * Puts every open {@link LogRingAppender} of this JVM back on Logback's root logger after any
 * application's start has configured logging. Spring Boot configures the JVM's one Logback context
 * with a stop and a reset when an application starts after another one closed; the stop also
 * removes Logback's own context listeners (reset-resistant ones included), so only a hook that
 * runs with every start can repair it. Registered in {@code META-INF/spring.factories}, so it is
 * called for applications that have no ring of their own too; runs right after
 * {@link LoggingApplicationListener}. The set is static because the appenders belong to other
 * application contexts than the one starting; each leaves it when its context closes.
 */
public final class LogRingReattachment implements ApplicationListener<ApplicationEnvironmentPreparedEvent>, Ordered {

    private static final Set<LogRingAppender> OPEN = ConcurrentHashMap.newKeySet();

    static void register(LogRingAppender appender) {
        OPEN.add(appender);
    }

    static void unregister(LogRingAppender appender) {
        OPEN.remove(appender);
    }

    @Override
    public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
        reattachAll();
    }

    static void reattachAll() {
        for (LogRingAppender appender : OPEN) {
            if (appender.getContext() instanceof LoggerContext context) {
                BoundedLogOutput.install(context);
            }
            appender.reattach();
        }
    }

    @Override
    public int getOrder() {
        return LoggingApplicationListener.DEFAULT_ORDER + 1;
    }
}
