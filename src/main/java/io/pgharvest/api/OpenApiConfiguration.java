package io.pgharvest.api;

import io.swagger.v3.oas.annotations.OpenAPIDefinition;
import io.swagger.v3.oas.annotations.enums.SecuritySchemeType;
import io.swagger.v3.oas.annotations.info.Info;
import io.swagger.v3.oas.annotations.security.SecurityRequirement;
import io.swagger.v3.oas.annotations.security.SecurityScheme;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import java.util.Locale;
import java.util.Map;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springdoc.core.utils.PropertyResolverUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The OpenAPI description at {@code /v3/api-docs} (Swagger UI at {@code /swagger-ui.html}): every
 * operation needs the bearer token and may answer 401 and 500 with problem details; the other
 * error responses are declared on each operation.
 */
@Configuration(proxyBeanMethods = false)
@OpenAPIDefinition(
        info = @Info(title = "pgharvest admin API", version = "v1",
                description = "Sources, metrics and presets of the pgharvest PostgreSQL metrics collector."
                        + " Errors are RFC 9457 problem details. List and status endpoints are blocking queries:"
                        + " pass the X-Pgharvest-Index of a previous answer as ?index= to wait for a change."),
        security = @SecurityRequirement(name = OpenApiConfiguration.BEARER))
@SecurityScheme(name = OpenApiConfiguration.BEARER, type = SecuritySchemeType.HTTP, scheme = "bearer",
        description = "pgharvest.api.token, or the content of <data-dir>/api-token")
class OpenApiConfiguration {

    static final String BEARER = "bearer";

    /**
     * springdoc resolves {@code ${...}} in every text of the description against the
     * environment, and the description is public: a text that documents {@code ${VAR}} (or any
     * placeholder that happens to match a property) would publish a value of the process. The
     * texts are written to be shown as they are, so resolution is switched off.
     */
    @Bean
    static BeanPostProcessor literalApiDocsTexts() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof PropertyResolverUtils resolver && !(bean instanceof LiteralTexts)) {
                    return new LiteralTexts(resolver);
                }
                return bean;
            }
        };
    }

    /** Returns every text as written. */
    private static final class LiteralTexts extends PropertyResolverUtils {

        LiteralTexts(PropertyResolverUtils original) {
            super(original.getFactory(), null, original.getSpringDocConfigProperties());
        }

        @Override
        public String resolve(String text, Locale locale) {
            return text;
        }

        @Override
        public Map<String, Object> resolveExtensions(Locale locale, Map<String, Object> extensions) {
            return extensions;
        }
    }

    @Bean
    OpenApiCustomizer commonErrorResponses() {
        return openApi -> openApi.getPaths().forEach((path, item) -> item.readOperations().forEach(operation -> {
            operation.getResponses().putIfAbsent("401", problem("Missing or wrong bearer token"));
            operation.getResponses().putIfAbsent("500", problem("Server failure; nothing was changed"));
        }));
    }

    private static ApiResponse problem(String description) {
        Schema<?> schema = new Schema<>().$ref("#/components/schemas/Problem");
        return new ApiResponse().description(description)
                .content(new Content().addMediaType(ApiDocs.PROBLEM_JSON, new MediaType().schema(schema)));
    }
}
