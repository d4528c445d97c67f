package io.pgharvest.alert.pack;

import io.pgharvest.alert.rule.AlertRuleBody;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The rules shipped inside the jar ({@value #RESOURCE}): rules as data, like the built-in metric
 * catalog. Each names the metric it reads, so it applies to exactly the sources that collect it.
 */
public final class BuiltInRules {

    static final String RESOURCE = "alert/rules.yaml";

    private BuiltInRules() {
    }

    /** The file's form: {@code rules:} and a list. */
    record RulesFile(List<AlertRuleBody> rules) {
    }

    /** Every built-in rule by name, in the file's order. */
    public static Map<String, AlertRuleBody> load() {
        try (InputStream in = BuiltInRules.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the built-in alert rules " + RESOURCE + " are missing from the class path");
            }
            RulesFile file = YAMLMapper.builder().build().readValue(in, RulesFile.class);
            var byName = new LinkedHashMap<String, AlertRuleBody>();
            for (AlertRuleBody rule : file.rules()) {
                if (byName.put(rule.name(), rule) != null) {
                    throw new IllegalStateException(RESOURCE + " names rule " + rule.name() + " twice");
                }
            }
            return byName;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }
}
