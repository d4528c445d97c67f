package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.TestBrowser;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * Two consoles (two Chromium sessions) editing the same item: every edit is conditional on the
 * modifyIndex its form was filled from, so the second save gets 409 and the page says so, offers
 * to reload, and the first writer's change stays.
 */
class ConsoleCheckAndSetTest extends ConsoleTestBase {

    private TestBrowser second;

    @BeforeEach
    void startSecondConsole() {
        second = TestBrowser.start(1280, 900);
    }

    @AfterEach
    void stopSecondConsole() {
        second.close();
    }

    @Test
    void twoConsolesEditingOneSourceTheSecondSaveIsRefusedAndThePageSaysSo() {
        api("POST", "/api/v1/sources", """
                {"name": "shared-edit", "connStr": "postgresql://monitor:pw@127.0.0.1:1/x", "enabled": false,
                 "preset": "basic", "group": "start"}""");
        openForm(browser, "#/sources/shared-edit/edit");
        openForm(second, "#/sources/shared-edit/edit");

        setGroup(browser, "alpha");
        browser.driver().findElement(By.id("save")).click();
        browser.waiting(Duration.ofSeconds(10)).until(d -> d.getCurrentUrl().endsWith("#/sources/shared-edit"));
        assertThat(api("GET", "/api/v1/sources/shared-edit", null)).contains("\"group\":\"alpha\"");

        setGroup(second, "beta");
        second.driver().findElement(By.id("save")).click();
        String said = second.waiting(Duration.ofSeconds(10)).until(d -> {
            String text = d.findElement(By.cssSelector("form .form-error")).getText();
            return text.isBlank() ? null : text;
        });
        assertThat(said).contains("Not saved").contains("changed by someone else");
        assertThat(second.driver().getCurrentUrl()).endsWith("#/sources/shared-edit/edit");
        assertThat(api("GET", "/api/v1/sources/shared-edit", null)).contains("\"group\":\"alpha\"");
        second.screenshot("stale-edit");

        WebElement reload = second.driver().findElement(By.cssSelector("form .form-error button.reload-stale"));
        assertThat(second.driver().switchTo().activeElement()).isEqualTo(reload);
        reload.click();
        second.waiting(Duration.ofSeconds(10)).until(d -> "alpha".equals(
                d.findElement(By.id("field-group")).getDomProperty("value")));
        setGroup(second, "beta");
        second.driver().findElement(By.id("save")).click();
        second.waiting(Duration.ofSeconds(10)).until(d -> d.getCurrentUrl().endsWith("#/sources/shared-edit"));
        assertThat(api("GET", "/api/v1/sources/shared-edit", null)).contains("\"group\":\"beta\"");
    }

    @Test
    void twoConsolesEditingOneMetricTheSecondSaveIsRefused() {
        api("POST", "/api/v1/metrics", """
                {"name": "shared_metric", "description": "first", "sqls": {"14": "select 1 as v"}}""");
        for (TestBrowser console : new TestBrowser[] {browser, second}) {
            open(console, "#/metrics");
            console.waiting(Duration.ofSeconds(10)).until(d -> d.findElement(By.id("catalog-search"))).sendKeys("shared_metric");
            console.waiting(Duration.ofSeconds(10)).until(d -> d.findElement(
                    By.cssSelector("#metrics-list tr[data-name=shared_metric] button"))).click();
            console.waiting(Duration.ofSeconds(10)).until(d -> d.findElement(By.id("field-description")));
        }
        browser.driver().findElement(By.id("field-description")).sendKeys(" by one");
        browser.driver().findElement(By.id("save")).click();
        browser.waiting(Duration.ofSeconds(10)).until(d -> d.findElements(By.id("field-description")).isEmpty());
        second.driver().findElement(By.id("field-description")).sendKeys(" by two");
        second.driver().findElement(By.id("save")).click();
        second.waiting(Duration.ofSeconds(10)).until(d -> d.findElement(By.cssSelector("#editor .form-error"))
                .getText().contains("changed by someone else"));
        assertThat(api("GET", "/api/v1/metrics/shared_metric", null)).contains("first by one").doesNotContain("by two");
    }

    private void openForm(TestBrowser console, String hash) {
        open(console, hash);
        console.waiting(Duration.ofSeconds(10)).until(d -> "start".equals(
                d.findElement(By.id("field-group")).getDomProperty("value")));
    }

    private static void setGroup(TestBrowser console, String group) {
        WebElement field = console.driver().findElement(By.id("field-group"));
        field.clear();
        field.sendKeys(group);
    }
}
