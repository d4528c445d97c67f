package io.pgharvest.sink.spill;

import io.pgharvest.model.Measurement;
import io.pgharvest.sink.JsonValues;
import java.io.ByteArrayOutputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.ObjectWriteContext;

/**
 * One measurement as one spill record payload: compact JSON,
 * {@code {"s":source,"m":metric,"t":time,"g":{tags},"r":[{"v":{values},"g":{row tags}}]}}.
 * Integers come back as Integer/Long/BigInteger and fractions as BigDecimal, so numeric
 * columns keep their digits; NaN and infinities come back as null (see {@link JsonValues}).
 */
public final class SpillCodec {

    private final JsonFactory factory = JsonFactory.builder().build();

    public byte[] encode(Measurement m) {
        var out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = factory.createGenerator(ObjectWriteContext.empty(), out)) {
            json.writeStartObject();
            json.writeStringProperty("s", m.source());
            json.writeStringProperty("m", m.metric());
            json.writeStringProperty("t", m.time().toString());
            json.writeName("g");
            JsonValues.writeObject(json, m.tags());
            json.writeName("r");
            json.writeStartArray();
            for (Measurement.Row row : m.rows()) {
                json.writeStartObject();
                json.writeName("v");
                JsonValues.writeObject(json, row.values());
                json.writeName("g");
                JsonValues.writeObject(json, row.tags());
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        }
        return out.toByteArray();
    }

    Measurement decode(byte[] payload) {
        try (JsonParser json = factory.createParser(ObjectReadContext.empty(), payload)) {
            expect(json.nextToken(), JsonToken.START_OBJECT);
            String source = null;
            String metric = null;
            Instant time = null;
            Map<String, String> tags = Map.of();
            List<Measurement.Row> rows = List.of();
            while (json.nextToken() == JsonToken.PROPERTY_NAME) {
                String field = json.currentName();
                json.nextToken();
                switch (field) {
                    case "s" -> source = json.getString();
                    case "m" -> metric = json.getString();
                    case "t" -> time = Instant.parse(json.getString());
                    case "g" -> tags = readTags(json);
                    case "r" -> rows = readRows(json);
                    default -> json.skipChildren();
                }
            }
            return new Measurement(source, metric, time, rows, tags);
        }
    }

    private static List<Measurement.Row> readRows(JsonParser json) {
        expect(json.currentToken(), JsonToken.START_ARRAY);
        var rows = new ArrayList<Measurement.Row>();
        while (json.nextToken() == JsonToken.START_OBJECT) {
            Map<String, Object> values = Map.of();
            Map<String, String> tags = Map.of();
            while (json.nextToken() == JsonToken.PROPERTY_NAME) {
                String field = json.currentName();
                json.nextToken();
                switch (field) {
                    case "v" -> values = readValues(json);
                    case "g" -> tags = readTags(json);
                    default -> json.skipChildren();
                }
            }
            rows.add(new Measurement.Row(values, tags));
        }
        return rows;
    }

    private static Map<String, Object> readValues(JsonParser json) {
        expect(json.currentToken(), JsonToken.START_OBJECT);
        var values = new LinkedHashMap<String, Object>();
        while (json.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = json.currentName();
            JsonToken token = json.nextToken();
            values.put(name, switch (token) {
                case VALUE_NUMBER_INT -> json.getNumberValue();
                case VALUE_NUMBER_FLOAT -> json.getDecimalValue();
                case VALUE_STRING -> json.getString();
                case VALUE_TRUE -> Boolean.TRUE;
                case VALUE_FALSE -> Boolean.FALSE;
                case VALUE_NULL -> null;
                default -> {
                    json.skipChildren();
                    yield null;
                }
            });
        }
        return values;
    }

    private static Map<String, String> readTags(JsonParser json) {
        expect(json.currentToken(), JsonToken.START_OBJECT);
        var tags = new LinkedHashMap<String, String>();
        while (json.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = json.currentName();
            json.nextToken();
            tags.put(name, json.getValueAsString());
        }
        return tags;
    }

    private static void expect(JsonToken actual, JsonToken expected) {
        if (actual != expected) {
            throw new IllegalArgumentException("malformed spill record: expected " + expected + ", found " + actual);
        }
    }
}
