package io.pgharvest.alert.rule;

import java.util.Optional;
import java.util.Set;

/** What a rule may refer to: the metrics the configuration has and, where known, their columns. */
public interface MetricLookup {

    boolean exists(String metric);

    /** The columns and tags {@code metric}'s rows carry; empty when unknown (an operator's own SQL). */
    Optional<Set<String>> columns(String metric);
}
