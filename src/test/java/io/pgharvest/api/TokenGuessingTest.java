package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Guessing the token from one address is throttled, on the running application: past ten wrong
 * tokens within a minute (the default) the guesser gets 429 with Retry-After, even with the right
 * token, while the right token from another address is served at once. The burst is logged once,
 * without any token. The guesser's address is a loopback address of its own (127.0.0.77), so the
 * other tests sharing the application (from 127.0.0.1) are not throttled.
 */
@ExtendWith(OutputCaptureExtension.class)
class TokenGuessingTest extends ApiTestBase {

    private static final String GUESSER = "127.0.0.77";
    private static final String OTHER = "127.0.0.78";

    @Test
    void wrongTokensFromOneAddressAreThrottledAndTheRightTokenFromAnotherIsNot(CapturedOutput log) throws Exception {
        var statuses = new ArrayList<Integer>();
        HttpResponse<String> last = null;
        long started = System.nanoTime();
        for (int i = 0; i < 300; i++) {
            last = get(GUESSER, "guess-" + i + "-0123456789");
            statuses.add(last.statusCode());
        }
        long elapsedMs = (System.nanoTime() - started) / 1_000_000;

        assertThat(statuses.subList(0, 10)).as("the allowance").containsOnly(401);
        assertThat(statuses.subList(10, 300)).as("after it, in " + elapsedMs + " ms").containsOnly(429);
        assertThat(last.headers().firstValue("Retry-After")).hasValueSatisfying(
                seconds -> assertThat(Long.parseLong(seconds)).isBetween(1L, 60L));
        assertThat(last.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(get(GUESSER, TOKEN).statusCode()).as("the right token from the throttled address").isEqualTo(429);
        assertThat(get(OTHER, TOKEN).statusCode()).as("the right token from another address").isEqualTo(200);
        assertThat(get(OTHER, "one-wrong-guess-0123456789").statusCode()).isEqualTo(401);

        List<String> lines = log.getAll().lines().filter(l -> l.contains("wrong tokens from")).toList();
        assertThat(lines).as("one log line for the burst").hasSize(1);
        assertThat(lines.get(0)).contains(GUESSER).doesNotContain("guess-");
        assertThat(log.getAll()).doesNotContain("guess-1-0123456789", TOKEN);
    }

    private HttpResponse<String> get(String from, String token) throws Exception {
        try (HttpClient client = HttpClient.newBuilder().localAddress(InetAddress.getByName(from)).build()) {
            return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/sources"))
                    .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
        }
    }
}
