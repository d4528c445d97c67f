package io.pgharvest.source;

import io.pgharvest.kind.KindRegistry;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import java.util.TreeSet;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** The kinds of source this collector can take, from the kind registry (the console's kind list reads it). */
@RestController
@Tag(name = "Sources")
class KindController {

    private final KindRegistry kinds;

    KindController(KindRegistry kinds) {
        this.kinds = kinds;
    }

    @GetMapping("/api/v1/kinds")
    @Operation(summary = "List the kinds of source",
            description = "Every value a source's kind may take, the default (postgres) first: whether its sources are"
                    + " collected with a session of their own, whether it stands for sources it discovers, how its"
                    + " connection string is written, and the metrics its discovery adds whatever the selection.")
    List<KindResponse> kinds() {
        return kinds.kinds().stream()
                .map(entry -> new KindResponse(entry.kind().label(), entry.collected(), entry.discovers(),
                        entry.kind().connectionExample(), entry.kind().connectionHint(),
                        List.copyOf(new TreeSet<>(entry.kind().addedNativeMetrics().keySet()))))
                .toList();
    }

    @Schema(name = "Kind", description = "A kind of source")
    record KindResponse(
            @Schema(example = "postgres") String kind,
            @Schema(description = "its sources have a session of their own and a connection test") boolean collected,
            @Schema(description = "it stands for the sources it discovers (databases, cluster members)") boolean discovers,
            @Schema(description = "an example connection string of this kind, passwords as placeholders",
                    example = "postgresql://user:password@host:5432/db") String connStrExample,
            @Schema(description = "what the connection string names and how it is written",
                    example = "postgresql:// URI or libpq key=value") String connStrHint,
            @Schema(description = "native metrics its discovery adds to every source it finds, whatever the"
                    + " selection: a source of this kind collects them without a preset") List<String> addedMetrics) {
    }
}
