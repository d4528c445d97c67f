package io.pgharvest.source;

import io.pgharvest.kind.KindRegistry;
import io.pgharvest.model.SourceKind;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import java.util.Map;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springdoc.core.utils.SpringDocUtils;
import org.springframework.stereotype.Component;

/**
 * The OpenAPI document's values of a source's {@code kind}: the registry's kinds, not a list typed
 * here. A request may name the kinds this build offers ({@link KindRegistry}); a response shows a
 * {@link SourceKind} as the string it is on the wire, one of the registered kinds.
 */
@Component
class KindSchemaCustomizer implements OpenApiCustomizer {

    private final KindRegistry kinds;

    KindSchemaCustomizer(KindRegistry kinds) {
        this.kinds = kinds;
        SpringDocUtils.getConfig().replaceWithSchema(SourceKind.class,
                new StringSchema()._enum(SourceKind.values().stream().map(SourceKind::label).toList()));
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
