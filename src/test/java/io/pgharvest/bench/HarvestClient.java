package io.pgharvest.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The harness's HTTP client for one pgharvest process on 127.0.0.1: admin API and actuator, with
 * the bearer token. Every request has a timeout; {@link #send} retries a bounded number of times.
 */
final class HarvestClient {

    static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final int ATTEMPTS = 3;

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final URI base;
    private final String token;

    HarvestClient(int port, String token) {
        this.base = URI.create("http://127.0.0.1:" + port);
        this.token = token;
    }

    record Response(int status, String body) {

        JsonNode json() {
            return JSON.readTree(body);
        }

        boolean ok() {
            return status / 100 == 2;
        }
    }

    Response get(String path) {
        return send(HttpRequest.newBuilder(base.resolve(path)).GET());
    }

    Response post(String path, Object body) {
        return send(HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))));
    }

    /** One request without retries (readiness polling): null when nothing answers yet. */
    Response tryGet(String path) {
        try {
            return once(HttpRequest.newBuilder(base.resolve(path)).GET());
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }

    /** Sends with up to {@value #ATTEMPTS} attempts on I/O errors and 5xx answers. */
    private Response send(HttpRequest.Builder request) {
        IOException lastError = null;
        Response last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                last = once(request);
                if (last.status < 500) {
                    return last;
                }
            } catch (IOException e) {
                lastError = e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted", e);
            }
        }
        String what = request.build().method() + " " + request.build().uri();
        if (last != null) {
            throw new IllegalStateException(what + " answered " + last.status + ": " + last.body);
        }
        throw new IllegalStateException(what + " failed " + ATTEMPTS + " times", lastError);
    }

    private Response once(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpRequest built = request.copy().timeout(REQUEST_TIMEOUT)
                .header("Authorization", "Bearer " + token).build();
        HttpResponse<String> response = http.send(built, HttpResponse.BodyHandlers.ofString());
        return new Response(response.statusCode(), response.body());
    }
}
