package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;

/**
 * The console is served by the same server at /, its files without a token, under a strict
 * Content-Security-Policy, while the API it calls still requires the token; logging in keeps the
 * token in the page's memory only.
 */
class ConsoleServingTest extends ConsoleTestBase {

    @Test
    void consoleFilesArePublicUnderAStrictPolicyWhileTheApiNeedsTheToken() {
        HttpResponse<String> page = http("GET", "/", null, null);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<script type=\"module\" src=\"console/app.js\">");
        String policy = page.headers().firstValue("Content-Security-Policy").orElseThrow();
        assertThat(policy).contains("default-src 'self'").contains("script-src 'self'").doesNotContain("unsafe");
        assertThat(http("GET", "/console/app.js", null, null).statusCode()).isEqualTo(200);
        assertThat(http("GET", "/api/v1/status", null, null).statusCode()).isEqualTo(401);
        assertThat(http("GET", "/api/v1/status", "wrong-token-0123456789", null).statusCode()).isEqualTo(401);
        assertThat(http("GET", "/api/v1/status", TOKEN, null).statusCode()).isEqualTo(200);
    }

    @Test
    void theFleetStatusIsABlockingQueryAnsweredWithinTwoSecondsOfAChange() throws Exception {
        HttpResponse<String> first = http("GET", "/api/v1/status", TOKEN, null);
        String index = first.headers().firstValue("X-Pgharvest-Index").orElseThrow();
        var waiting = CompletableFuture.supplyAsync(() -> http("GET", "/api/v1/status?index=" + index + "&wait=20s",
                TOKEN, null));
        Thread.sleep(300); // parked before the change
        assertThat(waiting).isNotDone();
        long changed = System.nanoTime();
        api("POST", "/api/v1/sources", """
                {"name": "fleet-waiter", "connStr": "postgresql://monitor@127.0.0.1:1/x", "enabled": false,
                 "preset": "basic"}""");
        HttpResponse<String> answer = waiting.get(2, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - changed)).isLessThan(Duration.ofSeconds(2));
        assertThat(Long.parseLong(answer.headers().firstValue("X-Pgharvest-Index").orElseThrow()))
                .isGreaterThan(Long.parseLong(index));
        assertThat(answer.body()).contains("\"name\":\"fleet-waiter\"").contains("\"state\":\"disabled\"")
                .containsPattern("\"counts\":\\{[^}]*\"disabled\":[1-9]");
    }

    @Test
    void aDraftIsTestedBeforeSavingAndABadConnectionStringIsNamed() {
        HttpResponse<String> unreachable = http("POST", "/api/v1/sources/test", TOKEN,
                "{\"connStr\": \"postgresql://monitor:pw@127.0.0.1:1/x\"}");
        assertThat(unreachable.statusCode()).isEqualTo(200);
        assertThat(unreachable.body()).contains("\"reachable\":false").doesNotContain("pw@");
        HttpResponse<String> malformed = http("POST", "/api/v1/sources/test", TOKEN,
                "{\"connStr\": \"postgresql://[::1\", \"kind\": \"postgres\"}");
        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(malformed.body()).contains("\"field\":\"connStr\"");
        assertThat(http("GET", "/api/v1/sources/draft", TOKEN, null).statusCode()).isEqualTo(404);
        HttpResponse<String> badLevel = http("GET", "/api/v1/logs?level=LOUD", TOKEN, null);
        assertThat(badLevel.statusCode()).isEqualTo(400);
        assertThat(badLevel.body()).contains("\"field\":\"level\"");
        HttpResponse<String> badCauseLevel = http("GET", "/api/v1/logs/causes?level=LOUD&index=x", TOKEN, null);
        assertThat(badCauseLevel.statusCode()).isEqualTo(400);
        assertThat(badCauseLevel.body()).contains("\"field\":\"level\"");
        HttpResponse<String> noCause = http("GET", "/api/v1/logs/causes/987654321/sources", TOKEN, null);
        assertThat(noCause.statusCode()).isEqualTo(404);
        assertThat(noCause.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
                assertThat(type).startsWith("application/problem+json"));
        assertThat(http("GET", "/api/v1/logs/causes/many/sources", TOKEN, null).statusCode()).isEqualTo(400);
    }

    @Test
    void aWrongTokenIsRefusedAndTheRightOneIsKeptOnlyInMemory() {
        browser.driver().get(baseUrl());
        waitFor(By.id("token")).sendKeys("not-the-token-0123456789");
        browser.driver().findElement(By.id("login")).click();
        browser.waiting(Duration.ofSeconds(5)).until(d -> d.findElement(By.id("token-error")).getText()
                .contains("not the API token"));

        logIn();
        var js = (JavascriptExecutor) browser.driver();
        assertThat(js.executeScript("return localStorage.length + sessionStorage.length")).isEqualTo(0L);
        assertThat(js.executeScript("return document.cookie")).isEqualTo("");
        assertThat(browser.driver().getCurrentUrl()).doesNotContain(TOKEN);
        browser.driver().navigate().refresh();
        waitFor(By.id("token"));
    }
}
