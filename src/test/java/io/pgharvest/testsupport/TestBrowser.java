package io.pgharvest.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium driven through Debian's chromedriver, for the console tests. Both
 * paths are given explicitly, so Selenium Manager never looks for (or downloads) a browser or a
 * driver; a machine without them fails the test with how to install them.
 */
public final class TestBrowser implements AutoCloseable {

    /**
     * Where the console's screenshots go: target/console-screenshots, so a test run leaves the
     * checkout as it was; {@code -Dconsole.screenshots=docs/console} refreshes the ones
     * docs/console.md shows.
     */
    public static final Path SCREENSHOTS = Path.of(System.getProperty("console.screenshots",
            "target/console-screenshots"));

    private final ChromeDriver driver;

    private TestBrowser(ChromeDriver driver) {
        this.driver = driver;
    }

    /** A fresh browser (its own profile, nothing stored) with a window of {@code width} x {@code height}. */
    public static TestBrowser start(int width, int height) {
        Path chromium = InstalledPrograms.require("chromium");
        Path chromedriver = InstalledPrograms.require("chromedriver");
        var service = new ChromeDriverService.Builder()
                .usingDriverExecutable(chromedriver.toFile())
                .usingAnyFreePort()
                .build();
        var options = new ChromeOptions();
        options.setBinary(chromium.toFile());
        // --no-sandbox: the tests run as root, where Chromium refuses its sandbox.
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--disable-extensions", "--no-first-run", "--window-size=" + width + "," + height);
        var driver = new ChromeDriver(service, options);
        driver.manage().window().setSize(new Dimension(width, height));
        return new TestBrowser(driver);
    }

    public ChromeDriver driver() {
        return driver;
    }

    /** A wait that polls every 50 ms and tries again when a live page replaced the element meanwhile. */
    public WebDriverWait waiting(Duration timeout) {
        var wait = new WebDriverWait(driver, timeout);
        wait.pollingEvery(Duration.ofMillis(50));
        wait.ignoring(StaleElementReferenceException.class);
        return wait;
    }

    /** Resizes the window so that the page's inner width is {@code width} CSS pixels. */
    public void resize(int width, int height) {
        driver.manage().window().setSize(new Dimension(width, height));
    }

    /** Saves a PNG of the window as {@code name}.png under {@link #SCREENSHOTS} and returns its path. */
    public Path screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Path target = SCREENSHOTS.resolve(name + ".png");
            File taken = driver.getScreenshotAs(OutputType.FILE);
            Files.copy(taken.toPath(), target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        driver.quit();
    }
}
