package io.pgharvest.alert.notify.webhook;

import io.pgharvest.alert.AlertTransition;
import io.pgharvest.alert.notify.DeliveryException;
import io.pgharvest.alert.notify.HttpDelivery;
import io.pgharvest.alert.notify.Receiver;
import io.pgharvest.alert.notify.UrlChecks;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import tools.jackson.databind.json.JsonMapper;

/**
 * POSTs each notification as one JSON object ({@code notificationId}, {@code status}, {@code fingerprint}, {@code labels},
 * {@code annotations}, {@code startsAt}, {@code endsAt}, {@code value}); JSON encoding keeps every
 * value data. With a secret, the body is signed: the receiver recomputes the HMAC over the bytes
 * it got and compares.
 */
final class WebhookReceiver implements Receiver {

    static final String SIGNATURE_HEADER = "X-Pgharvest-Signature";
    /** The notification's stable id, as the body's {@code notificationId}: the same when sent again. */
    static final String ID_HEADER = "X-Pgharvest-Notification-Id";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final URI url;
    private final byte[] secret;
    private final HttpDelivery http = new HttpDelivery();

    WebhookReceiver(WebhookSettings settings) {
        this.url = UrlChecks.parse(settings.url());
        this.secret = settings.secret() == null ? null : settings.secret().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void send(AlertTransition transition) throws DeliveryException {
        var body = new LinkedHashMap<String, Object>();
        body.put("notificationId", transition.notificationId());
        body.put("status", transition.state().name().toLowerCase(Locale.ROOT));
        body.put("fingerprint", transition.fingerprint());
        body.put("labels", transition.labels());
        body.put("annotations", transition.annotations());
        body.put("startsAt", transition.startsAt().toString());
        body.put("endsAt", transition.endsAt().toString());
        body.put("value", transition.value());
        byte[] bytes = JSON.writeValueAsBytes(body);
        var headers = new LinkedHashMap<String, String>();
        headers.put(ID_HEADER, transition.notificationId());
        if (secret != null) {
            headers.put(SIGNATURE_HEADER, "sha256=" + sign(bytes));
        }
        http.postJson(url, "url", bytes, headers);
    }

    private String sign(byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    @Override
    public void close() {
        http.close();
    }
}
