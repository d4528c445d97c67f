package io.pgharvest.source;

import io.pgharvest.api.ApiDocs;
import io.pgharvest.config.HarvestProperties;
import io.pgharvest.kind.ConnectionTestResult;
import io.pgharvest.kind.EndpointRegistry;
import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceConnection;
import io.pgharvest.model.SourceKind;
import io.pgharvest.model.StoreTable;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.HostFileParameters;
import io.pgharvest.model.connection.InvalidConnectionStringException;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.InvalidConfigException;
import io.pgharvest.store.NoSuchItemException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * Tries a stored source's connection, or a draft's before it is saved, once, within
 * {@code pgharvest.connect-timeout}. An unreachable server is a successful test with
 * {@code reachable: false}, not an HTTP error.
 */
@RestController
@Tag(name = "Sources")
class ConnectionTestController {

    private final ConfigStore store;
    private final EndpointRegistry endpoints;
    private final HarvestProperties properties;

    ConnectionTestController(ConfigStore store, EndpointRegistry endpoints, HarvestProperties properties) {
        this.store = store;
        this.endpoints = endpoints;
        this.properties = properties;
    }

    @PostMapping("/api/v1/sources/{name}/test")
    @Operation(summary = "Test a source's connection",
            description = "Connects once and reports the server version, recovery state and latency, or the error.")
    @ApiResponse(responseCode = "200", description = "The outcome; reachable tells whether the connection worked")
    @ApiResponse(responseCode = "400", description = "The stored connection string does not parse",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "404", description = "No such source",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ConnectionTestResult test(@PathVariable String name) {
        Source source = store.snapshot().sources().get(name);
        if (source == null) {
            throw new NoSuchItemException(StoreTable.SOURCES, name);
        }
        if (!endpoints.hasSession(source.kind())) {
            // A kind without a session (it stands for the sources it discovers) has no server of its own to
            // reach; the sessions of what it found show in its status.
            throw new InvalidConfigException(StoreTable.SOURCES, name, List.of(new FieldProblem("kind",
                    "a " + source.kind().label() + " source has no connection of its own to test: its status lists"
                            + " each member (discovery.members) and GET /api/v1/sources/<member>/status shows its"
                            + " session")));
        }
        return test(name, source.kind(), source.connection());
    }

    @PostMapping("/api/v1/sources/test")
    @Operation(summary = "Test a draft source's connection before saving it",
            description = "The body is a source as sent on create; only connStr, password and kind are used. A connStr"
                    + " whose password is ******** uses the stored password of the source named in the body, provided"
                    + " host, port, user and database are unchanged.")
    @ApiResponse(responseCode = "200", description = "The outcome; reachable tells whether the connection worked")
    @ApiResponse(responseCode = "400", description = "connStr or kind is invalid; errors names the field",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ConnectionTestResult testDraft(@RequestBody SourceRequest draft) {
        String name = draft.name() == null || draft.name().isBlank() ? "draft" : draft.name();
        var problems = new ArrayList<FieldProblem>();
        SourceKind kind = SourceKind.defaultKind();
        try {
            kind = SourceKind.fromLabel(draft.kind());
        } catch (IllegalArgumentException e) {
            problems.add(new FieldProblem("kind", e.getMessage()));
        }
        Source given = new Source(name, SourceConnection.parse(kind, draft.connStr() == null ? "" : draft.connStr())
                .withPassword(draft.password()), kind, null, true, null, Map.of(), null, null, null, false, null, null);
        // Refused as on create: a test opens the connection at once, so a file it names would be read.
        given.connection().parsed().flatMap(HostFileParameters::refusal)
                .ifPresent(refusal -> problems.add(new FieldProblem("connStr", refusal)));
        if (!problems.isEmpty()) {
            throw new InvalidConfigException(StoreTable.SOURCES, name, problems);
        }
        Source withSecret = MaskedPassword.keepStored(given, store.snapshot().sources().get(name));
        if (!endpoints.hasSession(kind)) {
            throw new InvalidConfigException(StoreTable.SOURCES, name, List.of(new FieldProblem("kind",
                    "a " + kind.label() + " source has no connection of its own to test")));
        }
        return test(name, kind, withSecret.connection());
    }

    private ConnectionTestResult test(String name, SourceKind kind, SourceConnection source) {
        ConnectionString connection;
        try {
            connection = source.connectionString();
        } catch (InvalidConnectionStringException e) {
            throw new InvalidConfigException(StoreTable.SOURCES, name, List.of(new FieldProblem("connStr", e.getMessage())));
        }
        return endpoints.test(kind, connection, properties.connectTimeout());
    }
}
