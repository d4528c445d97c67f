package io.pgharvest.api;

import io.pgharvest.config.DataDirectory;
import io.pgharvest.config.HarvestProperties;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import tools.jackson.databind.json.JsonMapper;

/** Wires the API's servlet filters: request limits and headers, the bearer-token check, then ETags. */
@Configuration(proxyBeanMethods = false)
class ApiSecurityConfiguration {

    @Bean
    ApiToken apiToken(HarvestProperties properties, DataDirectory dataDirectory) {
        return ApiToken.resolve(properties, dataDirectory);
    }

    @Bean
    FilterRegistrationBean<BearerTokenFilter> bearerTokenFilter(ApiToken token, JsonMapper json,
            AuthThrottleProperties throttle,
            @Value("${management.endpoints.web.base-path:/actuator}") String actuatorBasePath) {
        var failures = new FailedAuthentications(throttle, System::nanoTime);
        var registration = new FilterRegistrationBean<>(new BearerTokenFilter(token, actuatorBasePath, json, failures));
        registration.addUrlPatterns("/*");
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
        return registration;
    }

    /** Before the token check: a 401 answer carries the security headers too. */
    @Bean
    FilterRegistrationBean<RequestLimitsFilter> requestLimitsFilter(JsonMapper json,
            @Value("${management.endpoints.web.base-path:/actuator}") String actuatorBasePath) {
        var registration = new FilterRegistrationBean<>(new RequestLimitsFilter(json, actuatorBasePath));
        registration.addUrlPatterns("/*");
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 5);
        return registration;
    }

    /** After the token check: only an authorized blocking query takes a waiting place. */
    @Bean
    FilterRegistrationBean<WaiterLimitFilter> waiterLimitFilter(WaiterProperties limits, JsonMapper json,
            ParkedRequests parked) {
        var registration = new FilterRegistrationBean<>(new WaiterLimitFilter(limits, json, parked));
        registration.addUrlPatterns("/api/v1/*");
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 15);
        return registration;
    }

    /** After the token check: only an authorized answer gets an ETag or a 304. */
    @Bean
    FilterRegistrationBean<UnchangedAnswerFilter> unchangedAnswerFilter() {
        var registration = new FilterRegistrationBean<>(new UnchangedAnswerFilter());
        registration.addUrlPatterns("/api/v1/*");
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 20);
        return registration;
    }
}
