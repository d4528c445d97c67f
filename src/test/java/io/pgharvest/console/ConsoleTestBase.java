package io.pgharvest.console;

import io.pgharvest.testsupport.TestBrowser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import java.util.function.Predicate;
import org.openqa.selenium.By;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The real application on a random port and one headless Chromium per test class, logged in
 * through the console's own form. Pages are changed through the URL's hash, which keeps the
 * token (it lives only in the page's memory; a reload logs out).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
abstract class ConsoleTestBase {

    static final String TOKEN = "console-token-0123456789abcdef";
    static final Path DATA_DIR = createDataDir();
    static TestBrowser browser;

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("pgharvest.data-dir", DATA_DIR::toString);
        registry.add("pgharvest.api.token", () -> TOKEN);
        registry.add("pgharvest.connect-timeout", () -> "2s");
        registry.add("pgharvest.sinks[0].type", () -> "jsonfile");
        // A plan stands 5 s instead of a day, so a plan change shows within a test.
        registry.add("pgharvest.query-insights.plan-every", () -> "5s");
        // query_plans plans on a planning role's own login (docs/security.md): one for every test source.
        registry.add("pgharvest.query-insights.planning-user", () -> {
            io.pgharvest.testsupport.TestPostgres.shared().execute("postgres",
                    io.pgharvest.testsupport.TestPostgres.CREATE_TEST_PLANNER);
            return io.pgharvest.testsupport.TestPostgres.TEST_PLANNER;
        });
    }

    @BeforeAll
    static void startBrowser() {
        browser = TestBrowser.start(1280, 900);
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    String baseUrl() {
        return "http://localhost:" + port + "/";
    }

    /** Loads the console afresh (logged out) and logs in with the token. */
    void logIn() {
        logIn(browser);
    }

    /** Logs {@code in} (the class's browser, or a second one of a test's own) into the console. */
    void logIn(TestBrowser in) {
        in.driver().get(baseUrl());
        WebElement token = in.waiting(Duration.ofSeconds(10))
                .until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        token.sendKeys(TOKEN);
        in.driver().findElement(By.id("login")).click();
        in.waiting(Duration.ofSeconds(5)).until(driver -> driver.findElement(By.id("nav")).isDisplayed());
    }

    /** Shows the page at {@code hash} (such as {@code #/metrics}), logging in first when needed. */
    void open(String hash) {
        open(browser, hash);
    }

    /** {@link #open(String)} in {@code in}. */
    void open(TestBrowser in, String hash) {
        if (!in.driver().getCurrentUrl().startsWith(baseUrl())
                || in.driver().findElements(By.id("token")).size() > 0) {
            logIn(in);
        }
        // Setting the hash the page shows already would not render it afresh (no hashchange).
        in.driver().executeScript("if (location.hash === arguments[0]) location.hash = '#/blank';"
                + " location.hash = arguments[0]", hash);
    }

    WebElement waitFor(By locator) {
        return browser.waiting(Duration.ofSeconds(10)).until(ExpectedConditions.visibilityOfElementLocated(locator));
    }

    /**
     * The text of the element at {@code locator} once it satisfies {@code condition}. Live pages
     * re-render parts of themselves, and a page left behind may still hold an element of that id
     * for a moment, so the element is looked up afresh on each try.
     */
    String awaitText(By locator, Predicate<String> condition) {
        return awaitText(locator, condition, Duration.ofSeconds(10));
    }

    /** {@link #awaitText(By, Predicate)} for a state that waits on a source's first read (a login, a tick). */
    String awaitText(By locator, Predicate<String> condition, Duration timeout) {
        return browser.waiting(timeout)
                .ignoring(StaleElementReferenceException.class)
                .ignoring(NoSuchElementException.class)
                .until(driver -> {
                    String text = driver.findElement(locator).getText();
                    return condition.test(text) ? text : null;
                });
    }

    HttpResponse<String> http(String method, String path, String token, String body) {
        var request = HttpRequest.newBuilder(URI.create(baseUrl().replaceAll("/$", "") + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json");
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try (var client = HttpClient.newHttpClient()) {
            return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** An API call with the token that must succeed. */
    String api(String method, String path, String body) {
        HttpResponse<String> response = http(method, path, TOKEN, body);
        if (response.statusCode() >= 300) {
            throw new AssertionError(method + " " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    private static Path createDataDir() {
        try {
            return Files.createTempDirectory("pgharvest-console-test");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
