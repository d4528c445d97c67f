package io.pgharvest.alert.notify.alertmanager;

import io.pgharvest.alert.AlertTransition;
import io.pgharvest.alert.notify.DeliveryException;
import io.pgharvest.alert.notify.ExternalSilences;
import io.pgharvest.alert.notify.HttpDelivery;
import io.pgharvest.alert.notify.LabelMatcher;
import io.pgharvest.alert.notify.Receiver;
import io.pgharvest.alert.notify.Silence;
import io.pgharvest.alert.notify.UrlChecks;
import io.pgharvest.model.BoundedText;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Sends alerts to Alertmanager's v2 API ({@code POST /api/v2/alerts}) as Prometheus does: to
 * every Alertmanager of the cluster; a firing alert with {@code endsAt} ahead (so one that is no
 * longer re-sent resolves by itself), re-sent while it fires; a resolved one with {@code endsAt}
 * its resolution time. One Alertmanager that accepted it is enough (the cluster's members share
 * what they hear); only when none did is the send failed and retried. Silences are
 * Alertmanager's own (listed through {@code GET /api/v2/silences}).
 */
final class AlertmanagerReceiver implements Receiver, ExternalSilences {

    /** How far ahead a firing alert's {@code endsAt} is set when evaluation's has passed: four re-send intervals, as Prometheus does. */
    static final Duration FIRING_HORIZON = Duration.ofMinutes(4);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final List<URI> bases;
    private final Clock clock;
    private final HttpDelivery http = new HttpDelivery();

    AlertmanagerReceiver(AlertmanagerSettings settings, Clock clock) {
        this.bases = settings.urls().stream().map(UrlChecks::parse).toList();
        this.clock = clock;
    }

    @Override
    public boolean honoursSilences() {
        return false;
    }

    @Override
    public boolean wantsResends() {
        return true;
    }

    @Override
    public void send(AlertTransition transition) throws DeliveryException {
        byte[] body = JSON.writeValueAsBytes(List.of(alert(transition, clock.instant())));
        var failures = new ArrayList<String>();
        for (int i = 0; i < bases.size(); i++) {
            try {
                http.postJson(resolve(bases.get(i), "api/v2/alerts"), "urls[" + i + "]", body, Map.of());
            } catch (DeliveryException e) {
                failures.add(e.getMessage());
            }
        }
        if (failures.size() == bases.size()) {
            throw new DeliveryException("no Alertmanager accepted the alert: " + String.join("; ", failures));
        }
    }

    static Map<String, Object> alert(AlertTransition transition, Instant now) {
        Instant endsAt = transition.endsAt();
        if (transition.state() == AlertTransition.State.FIRING && !endsAt.isAfter(now)) {
            endsAt = now.plus(FIRING_HORIZON);
        }
        var alert = new LinkedHashMap<String, Object>();
        alert.put("labels", transition.labels());
        alert.put("annotations", transition.annotations());
        alert.put("startsAt", transition.startsAt().toString());
        alert.put("endsAt", endsAt.toString());
        return alert;
    }

    @Override
    public List<Silence> silences() throws DeliveryException {
        var byId = new LinkedHashMap<String, Silence>();
        var failures = new ArrayList<String>();
        for (int i = 0; i < bases.size(); i++) {
            try {
                JsonNode answer = JSON.readTree(http.get(resolve(bases.get(i), "api/v2/silences"), "urls[" + i + "]"));
                for (JsonNode node : answer) {
                    Silence silence = silence(node);
                    if (!"expired".equals(node.path("status").path("state").asString(""))) {
                        byId.putIfAbsent(silence.id(), silence);
                    }
                }
            } catch (DeliveryException e) {
                failures.add(e.getMessage());
            } catch (RuntimeException e) {
                failures.add("urls[" + i + "]: an answer that is not Alertmanager's silences ("
                        + e.getClass().getSimpleName() + ")");
            }
        }
        if (failures.size() == bases.size()) {
            throw new DeliveryException("no Alertmanager listed its silences: " + String.join("; ", failures));
        }
        return List.copyOf(byId.values());
    }

    private static Silence silence(JsonNode node) {
        var matchers = new ArrayList<LabelMatcher>();
        for (JsonNode m : node.path("matchers")) {
            matchers.add(new LabelMatcher(BoundedText.of(m.path("name").asString("")),
                    BoundedText.of(m.path("value").asString("")), m.path("isRegex").asBoolean(false),
                    m.path("isEqual").asBoolean(true)));
        }
        return new Silence(BoundedText.of(node.path("id").asString("")), matchers, time(node.path("startsAt")),
                time(node.path("endsAt")), BoundedText.of(node.path("createdBy").asString("")),
                BoundedText.of(node.path("comment").asString("")), Silence.ALERTMANAGER);
    }

    private static Instant time(JsonNode node) {
        return OffsetDateTime.parse(node.asString()).toInstant();
    }

    private static URI resolve(URI base, String path) {
        String text = base.toString();
        return URI.create(text.endsWith("/") ? text + path : text + "/" + path);
    }

    @Override
    public void close() {
        http.close();
    }
}
