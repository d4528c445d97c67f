package io.pgharvest.source;

import io.pgharvest.api.RequestNames;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceConnection;
import io.pgharvest.model.SourceKind;
import io.pgharvest.model.SourceRules;
import io.pgharvest.model.StoreTable;
import io.pgharvest.model.connection.HostFileParameters;
import io.pgharvest.store.InvalidConfigException;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.ArrayList;
import java.util.Map;

/**
 * A source as a client sends it. Only {@code connStr} is required ({@code name} too on create,
 * where the path does not carry it); the rest has defaults: kind postgres, group default,
 * enabled true, onlyIfPrimary false, keepQueryLiterals false, keepCommandSettings false.
 *
 * <p>Why this is not {@link Source} itself: the flags are {@code Boolean} so an absent one takes
 * its default; {@code kind} is text so that an unknown kind is reported as a field problem
 * together with every other problem of the request (an enum would fail the whole body in the JSON
 * reader); and a separate write-only {@code password} lets a client keep the secret out of
 * {@code connStr}. There is no {@code modifyIndex}: the store assigns it.
 *
 * @param password replaces the password of {@code connStr} when given; {@code connStr} may then
 *     be written without one
 */
@Schema(name = "SourceInput", description = "A source as sent on create or replace")
record SourceRequest(
        @Schema(description = "letters, digits, '_', '-', '.'; starts with a letter or digit; at most 63", example = "orders")
        String name,
        @Schema(description = "postgresql:// URI or libpq key=value string; a password of ******** keeps the stored one",
                example = "postgresql://monitor:secret@db1:5432/orders", requiredMode = Schema.RequiredMode.REQUIRED)
        String connStr,
        @Schema(description = "sets the password, replacing any in connStr; never returned", example = "secret")
        String password,
        @Schema(example = "postgres", description = "one of GET /api/v1/kinds; postgres when absent")
        String kind,
        @Schema(example = "default") String group,
        @Schema(example = "true") Boolean enabled,
        @Schema(example = "basic") String preset,
        @Schema(description = "metric -> interval in seconds; adds to or overrides the preset; 0 removes a preset metric")
        Map<String, Integer> metrics,
        String standbyPreset,
        Map<String, Integer> standbyMetrics,
        Map<String, String> tags,
        Boolean onlyIfPrimary,
        String includePattern,
        String excludePattern,
        @Schema(description = "let statement texts (long_running_queries, idle_in_transaction, ...) reach the sinks"
                + " with their literals; by default every constant is replaced by $n", example = "false")
        Boolean keepQueryLiterals,
        @Schema(description = "let the server settings that hold commands or secrets (archive_command,"
                + " restore_command, ssl_passphrase_command, ...) reach the sinks as the server shows them; by"
                + " default they are ********. Passwords in connection strings (primary_conninfo) never do",
                example = "false")
        Boolean keepCommandSettings) {

    /**
     * The source named {@code pathName} (or, when null, by the body), with the separate password
     * merged in. The kernel's {@link SourceRules} judge it; this maps the request's shape and
     * applies the API's own rule, {@link HostFileParameters}.
     *
     * @throws InvalidConfigException naming every problem at once when the name or kind cannot
     *     be mapped or the connection names a file on pgharvest's host (the rules' problems of the
     *     rest of the source included)
     */
    Source toSource(String pathName, ConfigSnapshot config) {
        var problems = new ArrayList<FieldProblem>();
        String effectiveName = RequestNames.resolve(pathName, name, problems);
        SourceKind parsedKind = SourceKind.defaultKind();
        try {
            parsedKind = SourceKind.fromLabel(kind);
        } catch (IllegalArgumentException e) {
            problems.add(new FieldProblem("kind", e.getMessage()));
        }
        Source source = new Source(effectiveName == null ? "" : effectiveName,
                SourceConnection.parse(parsedKind, connStr == null ? "" : connStr).withPassword(password), parsedKind, group,
                enabled == null || enabled, blankToNull(preset), metrics, blankToNull(standbyPreset), standbyMetrics,
                tags, onlyIfPrimary != null && onlyIfPrimary, blankToNull(includePattern), blankToNull(excludePattern),
                keepQueryLiterals != null && keepQueryLiterals, keepCommandSettings != null && keepCommandSettings);
        source.connection().parsed().flatMap(HostFileParameters::refusal)
                .ifPresent(refusal -> problems.add(new FieldProblem("connStr", refusal)));
        if (!problems.isEmpty()) {
            var mapped = problems.stream().map(FieldProblem::field).toList();
            SourceRules.check(source, config).stream().filter(p -> !mapped.contains(p.field())).forEach(problems::add);
            throw new InvalidConfigException(StoreTable.SOURCES, String.valueOf(effectiveName), problems);
        }
        return source;
    }

    private static String blankToNull(String text) {
        return text == null || text.isBlank() ? null : text;
    }
}
