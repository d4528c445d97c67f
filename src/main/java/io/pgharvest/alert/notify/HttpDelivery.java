package io.pgharvest.alert.notify;

import io.pgharvest.model.BoundedText;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;

/**
 * The HTTP side of the web receivers (Alertmanager, webhook, Slack): one client per receiver,
 * bounded waits, and failures described without the URL (it is a secret: Slack's and most
 * webhooks' carry their token), naming the target only as the caller calls it ({@code url},
 * {@code urls[1]}).
 */
public final class HttpDelivery implements AutoCloseable {

    /** How long one request may take, connecting included. */
    public static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final int ANSWER_CHARS = 200;

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT)
            .followRedirects(HttpClient.Redirect.NEVER).build();

    /** POSTs {@code body} as JSON; a 2xx answer is success. */
    public void postJson(URI target, String targetName, byte[] body, Map<String, String> headers)
            throws DeliveryException {
        var request = HttpRequest.newBuilder(target).timeout(TIMEOUT).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(request::header);
        send(request.build(), targetName);
    }

    /** GETs {@code target}; the body of a 2xx answer. */
    public String get(URI target, String targetName) throws DeliveryException {
        return send(HttpRequest.newBuilder(target).timeout(TIMEOUT).header("Accept", "application/json").GET().build(),
                targetName);
    }

    private String send(HttpRequest request, String targetName) throws DeliveryException {
        HttpResponse<String> response;
        try {
            response = client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            throw new DeliveryException(targetName + ": no answer within " + TIMEOUT.toSeconds() + " s");
        } catch (IOException e) {
            // The JDK's messages name no URL, but a proxy's might: only the exception's kind is kept.
            throw new DeliveryException(targetName + ": cannot reach it (" + e.getClass().getSimpleName() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DeliveryException(targetName + ": interrupted");
        }
        if (response.statusCode() / 100 != 2) {
            String answer = response.body() == null ? "" : response.body();
            throw new DeliveryException(targetName + ": HTTP " + response.statusCode() + " "
                    + BoundedText.of(answer.length() > ANSWER_CHARS ? answer.substring(0, ANSWER_CHARS) + "…" : answer));
        }
        return response.body();
    }

    @Override
    public void close() {
        client.close();
    }
}
