package io.pgharvest.history;

import java.util.List;

/** {@code pgharvest.history} cannot be used: every problem, each naming the entry and the option. */
final class HistoryConfigurationException extends IllegalStateException {

    HistoryConfigurationException(List<String> problems) {
        super("pgharvest.history is invalid:\n  - " + String.join("\n  - ", problems));
    }
}
