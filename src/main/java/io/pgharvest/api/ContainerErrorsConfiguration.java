package io.pgharvest.api;

import org.apache.catalina.core.StandardHost;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Errors Tomcat raises itself are answered with problem details ({@link ProblemReportValve}). */
@Configuration(proxyBeanMethods = false)
class ContainerErrorsConfiguration {

    @Bean
    WebServerFactoryCustomizer<TomcatServletWebServerFactory> problemReportValve() {
        return factory -> factory.addContextCustomizers(context -> {
            if (context.getParent() instanceof StandardHost host) {
                host.setErrorReportValveClass(ProblemReportValve.class.getName());
            }
        });
    }
}
