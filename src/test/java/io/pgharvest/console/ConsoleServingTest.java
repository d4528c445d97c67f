package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
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
