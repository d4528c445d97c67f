package io.pgharvest.alert.notify.dispatch;

import io.pgharvest.alert.notify.DeliveryException;
import io.pgharvest.alert.notify.ExternalSilences;
import io.pgharvest.alert.notify.KnownSilences;
import io.pgharvest.alert.notify.LabelMatcher;
import io.pgharvest.alert.notify.NotifyStore;
import io.pgharvest.alert.notify.Silence;

import io.pgharvest.model.FieldProblem;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * pgharvest's silences (honoured by its own receivers), listed beside those of every configured
 * Alertmanager (which silences what it gets itself).
 */
@RestController
@Tag(name = "Silences", description = "Alerts not to send for a while")
class SilenceController {

    private static final String BASE = "/api/v1/silences";

    private final NotifyStore store;
    private final ReceiverCatalog catalog;
    private final KnownSilences known;
    private final Clock clock = Clock.systemUTC();

    SilenceController(NotifyStore store, ReceiverCatalog catalog, KnownSilences known) {
        this.store = store;
        this.catalog = catalog;
        this.known = known;
    }

    record SilenceRequest(List<LabelMatcher> matchers, Instant startsAt, Instant endsAt, String author,
            String comment) {
    }

    /**
     * @param origin {@code pgharvest}, or {@code alertmanager}
     * @param receiver for Alertmanager's: the receiver whose Alertmanager has it
     * @param state pending, active or expired
     */
    record SilenceResponse(String id, String origin, String receiver, String state, List<LabelMatcher> matchers,
            Instant startsAt, Instant endsAt, String author, String comment) {

        static SilenceResponse of(Silence s, String receiver, Instant now) {
            return new SilenceResponse(s.id(), s.origin(), receiver, s.state(now), s.matchers(), s.startsAt(),
                    s.endsAt(), s.author(), s.comment());
        }
    }

    /** An Alertmanager receiver whose silences could not be listed. */
    record Unavailable(String receiver, String message) {
    }

    record SilencesResponse(List<SilenceResponse> silences, List<Unavailable> unavailable) {
    }

    @GetMapping(BASE)
    @Operation(summary = "List silences", description = "pgharvest's own and those of every Alertmanager receiver's"
            + " servers (origin alertmanager); an Alertmanager that did not answer is listed in unavailable.")
    SilencesResponse list() {
        Instant now = clock.instant();
        var silences = new ArrayList<SilenceResponse>();
        store.silences().forEach(s -> silences.add(SilenceResponse.of(s, null, now)));
        var unavailable = new ArrayList<Unavailable>();
        var listed = new java.util.HashSet<String>();
        for (ReceiverCatalog.Active active : catalog.receivers()) {
            if (active.receiver() instanceof ExternalSilences external) {
                listed.add(active.name());
                try {
                    List<Silence> theirs = external.silences();
                    known.fetched(active.name(), theirs);
                    theirs.forEach(s -> silences.add(SilenceResponse.of(s, active.name(), now)));
                } catch (DeliveryException e) { // the last fetched stay known: the alerts still show them
                    unavailable.add(new Unavailable(active.name(), e.getMessage()));
                }
            }
        }
        known.keepOnly(listed);
        return new SilencesResponse(silences, unavailable);
    }

    @PostMapping(BASE)
    @Operation(summary = "Create a silence", description = "{\"matchers\": [{\"name\", \"value\", \"isRegex\","
            + " \"isEqual\"}], \"startsAt\" (default now), \"endsAt\", \"author\", \"comment\"}")
    ResponseEntity<SilenceResponse> create(@RequestBody SilenceRequest request) {
        Instant now = clock.instant();
        if (request.matchers() != null && request.matchers().stream().anyMatch(java.util.Objects::isNull)) {
            throw new NotifyInputException("silence", List.of(new FieldProblem("matchers", "must not hold null")));
        }
        var silence = new Silence(UUID.randomUUID().toString(), request.matchers(),
                request.startsAt() == null ? now : request.startsAt(), request.endsAt(), request.author(),
                request.comment(), Silence.PGHARVEST);
        List<FieldProblem> problems = silence.problems();
        if (!problems.isEmpty()) {
            throw new NotifyInputException("silence", problems);
        }
        store.createSilence(silence);
        known.changed();
        return ResponseEntity.created(URI.create(BASE + "/" + silence.id())).body(SilenceResponse.of(silence, null, now));
    }

    @DeleteMapping(BASE + "/{id}")
    @Operation(summary = "Delete one of pgharvest's silences", description = "Alertmanager's are deleted in Alertmanager.")
    ResponseEntity<Void> delete(@PathVariable String id) {
        if (!store.deleteSilence(id)) {
            throw new NotifyProblems.NotFound("silence '" + io.pgharvest.model.BoundedText.of(id)
                    + "' does not exist among pgharvest's own (Alertmanager's are deleted in Alertmanager)");
        }
        known.changed();
        return ResponseEntity.noContent().build();
    }
}
