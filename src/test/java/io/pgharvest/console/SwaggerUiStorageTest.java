package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * Swagger UI, served on the console's own origin, keeps the token it is given in the page's memory
 * only: after authorizing there neither localStorage nor
 * sessionStorage of that origin holds it, so a later script on the origin or someone with the
 * browser's profile cannot read it back (springdoc.swagger-ui.persist-authorization off).
 */
class SwaggerUiStorageTest extends ConsoleTestBase {

    @Test
    void authorizingInSwaggerUiLeavesNoTokenInBrowserStorage() {
        var driver = browser.driver();
        driver.get(baseUrl() + "swagger-ui/index.html");
        var wait = browser.waiting(Duration.ofSeconds(20));
        wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector("button.authorize"))).click();
        WebElement value = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector(".modal-ux input")));
        value.sendKeys(TOKEN);
        driver.findElement(By.cssSelector(".modal-ux button.authorize")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.xpath("//div[contains(@class,'modal-ux')]//button[normalize-space()='Logout']")));
        driver.findElement(By.cssSelector(".modal-ux button.close-modal")).click();
        // The UI really holds the token.
        assertThat(driver.findElement(By.cssSelector("button.authorize")).getAttribute("class")).contains("locked");

        Object stored = driver.executeScript("""
                const all = {};
                for (const storage of [window.localStorage, window.sessionStorage]) {
                  for (let i = 0; i < storage.length; i++) {
                    all[storage.key(i)] = storage.getItem(storage.key(i));
                  }
                }
                return JSON.stringify(all);""");
        assertThat(String.valueOf(stored)).doesNotContain(TOKEN).doesNotContain("authorized");
        // The console of the same origin, opened afresh, is logged out.
        driver.get(baseUrl());
        browser.waiting(Duration.ofSeconds(10)).until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
    }
}
