package io.pgharvest.source;

import io.pgharvest.kind.KindRegistry;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.media.Schema;
import java.util.Map;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.stereotype.Component;

/** The OpenAPI document's allowed values of a source's {@code kind}: the registry's kinds, not a list typed here. */
@Component
class KindSchemaCustomizer implements OpenApiCustomizer {

    private final KindRegistry kinds;

    KindSchemaCustomizer(KindRegistry kinds) {
        this.kinds = kinds;
    }

    @Override
    @SuppressWarnings({"rawtypes", "unchecked"})
    public void customise(OpenAPI openApi) {
        if (openApi.getComponents() == null || openApi.getComponents().getSchemas() == null) {
            return;
        }
        Schema input = openApi.getComponents().getSchemas().get("SourceInput");
        Map<String, Schema> properties = input == null ? null : input.getProperties();
        Schema kind = properties == null ? null : properties.get("kind");
        if (kind != null) {
            kind.setEnum(kinds.labels());
        }
    }
}
