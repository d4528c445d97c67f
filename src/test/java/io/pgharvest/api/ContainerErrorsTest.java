package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Requests the container refuses before any controller (encoded slash, over-long URL) get problem details too. */
class ContainerErrorsTest extends ApiTestBase {

    @Test
    void anEncodedSlashIsAnsweredWithProblemDetails() throws Exception {
        String answer = raw("GET /api/v1/sources/a%2Fb HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + TOKEN
                + "\r\nConnection: close\r\n\r\n");

        assertThat(answer).startsWith("HTTP/1.1 400");
        assertThat(answer).containsIgnoringCase("content-type: application/problem+json").contains("\"status\":400")
                .doesNotContain("<html");
    }

    @Test
    void anOverlongUrlIsAnsweredWithProblemDetails() throws Exception {
        String answer = raw("GET /api/v1/sources?x=" + "a".repeat(20_000) + " HTTP/1.1\r\nHost: localhost\r\n"
                + "Connection: close\r\n\r\n");

        assertThat(answer).matches("(?s)HTTP/1.1 4\\d\\d.*");
        assertThat(answer).containsIgnoringCase("content-type: application/problem+json").doesNotContain("<html");
    }

    private String raw(String request) throws Exception {
        try (Socket socket = new Socket("localhost", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
