package io.pgharvest.alert.rule;

import dev.cel.runtime.CelVariableResolver;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.Source;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The variables a condition sees for one row: every column (numbers as doubles, so that
 * {@code oldest_xact_s > 300} and {@code > 300.0} mean the same), every tag as text,
 * {@code source} (name, group, kind, tags) and {@code params}. SQL NULLs are left out: a
 * condition naming one does not hold.
 */
public final class ConditionVariables {

    private ConditionVariables() {
    }

    public static Map<String, Object> of(Measurement.Row row, Source source, String sourceName,
            Map<String, Double> params, Map<String, Object> previous) {
        var variables = new HashMap<String, Object>();
        variables.putAll(columns(row));
        variables.putAll(row.tags());
        variables.put(RuleCompiler.SOURCE, sourceFields(source, sourceName));
        variables.put(RuleCompiler.PARAMS, params);
        variables.put(RuleCompiler.PREVIOUS, previous == null ? Map.of() : previous);
        return variables;
    }

    /**
     * The same variables as {@link #of}, looked up only when the condition reads them: the map
     * copied and converted every column of every row for every rule evaluated (pgwatch's rows carry
     * 20 to 40 columns, a condition reads one or two). Precedence as in {@link #of}: {@code source},
     * {@code params} and {@code previous} first, then a tag, then a column.
     */
    public static CelVariableResolver resolver(Measurement.Row row, Source source, String sourceName,
            Map<String, Double> params, Map<String, Object> previous) {
        return name -> switch (name) {
            case RuleCompiler.SOURCE -> Optional.of(sourceFields(source, sourceName));
            case RuleCompiler.PARAMS -> Optional.of(params);
            case RuleCompiler.PREVIOUS -> Optional.of(previous == null ? Map.of() : previous);
            default -> {
                String tag = row.tags().get(name);
                yield tag != null ? Optional.of(tag) : Optional.ofNullable(converted(row.values().get(name)));
            }
        };
    }

    /** The row's columns as a condition's {@code previous} sees them. */
    public static Map<String, Object> columns(Measurement.Row row) {
        var values = new HashMap<String, Object>();
        row.values().forEach((column, value) -> {
            Object converted = converted(value);
            if (converted != null) {
                values.put(column, converted);
            }
        });
        return values;
    }

    static Map<String, Object> sourceFields(Source source, String sourceName) {
        if (source == null) {
            return Map.of("name", sourceName, "group", "", "kind", "", "tags", Map.of());
        }
        return Map.of("name", sourceName, "group", source.group(), "kind", source.kind().label(), "tags", source.tags());
    }

    /** A row's value as CEL takes it: numbers as double, text and booleans as they are, others as text. */
    static Object converted(Object value) {
        return switch (value) {
            case null -> null;
            case BigDecimal decimal -> decimal.doubleValue();
            case Number number -> number.doubleValue();
            case Boolean bool -> bool;
            case String text -> text;
            default -> value.toString();
        };
    }
}
