package io.pgharvest.source;

import io.pgharvest.api.ApiDocs;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.NoSuchItemException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** Where a source's longer history is: the shipped Grafana dashboards, when a Grafana is configured. */
@RestController
@Tag(name = "Sources")
class DashboardController {

    /** A dashboard that shows the source. */
    record Dashboard(String title, String url) {
    }

    private final SourceStatusProvider statuses;
    private final GrafanaDashboards grafana;

    DashboardController(SourceStatusProvider statuses, GrafanaDashboards grafana) {
        this.statuses = statuses;
        this.grafana = grafana;
    }

    @GetMapping("/api/v1/sources/{name}/dashboards")
    @Operation(summary = "Dashboards of a source",
            description = "Links to the shipped Grafana dashboards with this source chosen, built from"
                    + " pgharvest.console.grafana-url; an empty list when it is unset.")
    @ApiResponse(responseCode = "200", description = "The dashboards")
    @ApiResponse(responseCode = "404", description = "No such source",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    List<Dashboard> dashboards(@PathVariable String name) {
        if (statuses.status(name).isEmpty()) {
            throw new NoSuchItemException(StoreTable.SOURCES, name);
        }
        return grafana.databaseDashboard(name)
                .map(url -> List.of(new Dashboard(GrafanaDashboards.DATABASE_DASHBOARD_TITLE, url))).orElse(List.of());
    }
}
