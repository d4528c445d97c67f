package io.pgharvest;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.BeanFactoryInitializer;
import org.springframework.beans.factory.BeanNameAware;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Starts pgharvest's own lifecycles (the sinks, the import, the window, alerts, the reapers, the
 * fleet's leases: every {@link SmartLifecycle} bean whose class is in {@code io.pgharvest}) as
 * soon as their beans exist, before Spring creates the web layer's beans (controllers, Actuator,
 * springdoc, Tomcat's start): the first measurements travel to the sinks while the rest of the
 * context is still being built. On 2 cores that rest took about 1.5 s of the 5 s to "Started"
 * (issue 50, docs/performance.md "The current profile").
 *
 * <p>Spring calls a {@link BeanFactoryInitializer} at the start of its singletons' creation, after
 * every bean post-processor is registered, so the beans made here are complete. They are started
 * the way the context's lifecycle processor would start them at the end of the refresh: by phase,
 * each bean's own lifecycle dependencies first, only those that start automatically. That
 * processor then skips them (they run) and stops them at close, by phase, as before; Spring's own
 * lifecycles (the web server) still start at the end of the refresh.
 *
 * <p>If the refresh fails after this (a web-layer bean that does not start, a port in use), the
 * context has no lifecycle processor yet and would stop nothing: {@link #destroy()}, which the
 * failed refresh calls when it destroys the beans, stops what was started here, in reverse order.
 */
@Component
class EngineStart implements BeanFactoryInitializer<ConfigurableListableBeanFactory>, BeanNameAware, DisposableBean {

    private static final String OWN_PACKAGE = PgharvestApplication.class.getPackageName() + ".";

    /** What this started, in the order it started them: stopped the other way round by destroy(). */
    private final List<SmartLifecycle> started = new ArrayList<>();
    private String name;

    @Override
    public void setBeanName(String name) {
        this.name = name;
    }

    @Override
    public void initialize(ConfigurableListableBeanFactory beanFactory) {
        Map<String, SmartLifecycle> own = ownLifecycles(beanFactory);
        var order = new ArrayList<>(own.entrySet());
        // Stable: within a phase, the order in which the beans were defined, as Spring does.
        order.sort(Comparator.comparingInt(entry -> entry.getValue().getPhase()));
        for (var entry : order) {
            start(entry.getKey(), own, beanFactory);
        }
    }

    private void start(String name, Map<String, SmartLifecycle> own, ConfigurableListableBeanFactory beanFactory) {
        SmartLifecycle bean = own.get(name);
        if (bean == null || bean.isRunning() || !bean.isAutoStartup()) {
            return;
        }
        for (String dependency : beanFactory.getDependenciesForBean(name)) {
            start(dependency, own, beanFactory);
        }
        bean.start();
        started.add(bean);
        // Destroyed before the beans it started (a failed refresh destroys dependents first), so
        // the reapers stop while the sinks still take their rows.
        beanFactory.registerDependentBean(name, this.name);
    }

    /** pgharvest's own auto-starting lifecycles, by bean name, in the order they were defined. */
    private static Map<String, SmartLifecycle> ownLifecycles(ConfigurableListableBeanFactory beanFactory) {
        var own = new LinkedHashMap<String, SmartLifecycle>();
        for (String name : beanFactory.getBeanNamesForType(SmartLifecycle.class, false, false)) {
            Class<?> type = beanFactory.getType(name, false);
            if (type != null && type.getName().startsWith(OWN_PACKAGE)) {
                own.put(name, beanFactory.getBean(name, SmartLifecycle.class));
            }
        }
        return own;
    }

    @Override
    public void destroy() {
        for (int i = started.size() - 1; i >= 0; i--) {
            SmartLifecycle bean = started.get(i);
            if (bean.isRunning()) {
                bean.stop();
            }
        }
        started.clear();
    }
}
