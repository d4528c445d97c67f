package io.pgharvest.pgwatch;

import java.util.Objects;

/**
 * Something in an imported file that was not taken over as written (an unknown or unsupported
 * field, a default applied, a definition given twice). Not an error: the import goes ahead.
 *
 * @param location file (or "request body") and line, e.g. {@code sources.yaml line 12}
 * @param field the field in the file's own spelling, e.g. {@code [2].host_config}
 */
public record ImportNotice(String location, String field, String message) {

    public ImportNotice {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(message, "message");
    }

    @Override
    public String toString() {
        return location + ": " + field + ": " + message;
    }
}
