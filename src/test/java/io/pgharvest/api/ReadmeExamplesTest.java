package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The README's API examples work as written, in the order they appear. */
class ReadmeExamplesTest extends ApiTestBase {

    private static final Pattern WRITE = Pattern.compile(
            "curl -s -X (POST|PUT) \"\\$API(/[^\"]+)\"[^\\n]*\\\\\\n\\s*-d '([^']*)'");

    @Test
    void everyWritingExampleOfTheReadmeSucceeds() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        var examples = new ArrayList<String>();
        var matcher = WRITE.matcher(readme);
        while (matcher.find()) {
            String method = matcher.group(1);
            String path = "/api/v1" + matcher.group(2);
            var answer = api().send(method, path, matcher.group(3));
            examples.add(method + " " + path);
            assertThat(answer.status()).as(method + " " + path + " -> " + answer).isBetween(200, 299);
        }
        assertThat(examples).contains("POST /api/v1/sources", "PUT /api/v1/sources/orders", "POST /api/v1/metrics",
                "POST /api/v1/presets");
        api().delete("/api/v1/sources/orders");
    }
}
