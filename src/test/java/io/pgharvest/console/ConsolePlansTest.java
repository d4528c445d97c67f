package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * A statement's plans on its page, in a real Chromium against a real PostgreSQL: the generic plan of
 * a top SELECT shows as text with when it was read; after the index it used is dropped, the page
 * (without a reload) shows the new plan and marks the change with its time and the shape it
 * replaced, and the source's list of statements marks it, linking to that page. The table and index
 * are named with markup, which stays text.
 */
class ConsolePlansTest extends ConsoleTestBase {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final String DB = "console_plans_db";
    private static final String TABLE = "t<img src=x onerror=window.planXss=1>";
    private static final String INDEX = "i<b>bold</b>";

    @Test
    void thePlanShowsAsTextAndAChangeIsMarkedWithItsTime() throws Exception {
        pg.createDatabase(DB);
        pg.execute(DB, "create extension if not exists pg_stat_statements");
        pg.execute(DB, "create table \"" + TABLE + "\" (id int primary key, status text, name text)");
        pg.execute(DB, "insert into \"" + TABLE + "\" select i, 'status-' || i, 'n' || i from generate_series(1, 5000) i");
        pg.execute(DB, "create index \"" + INDEX + "\" on \"" + TABLE + "\" (status)");
        pg.execute(DB, "analyze \"" + TABLE + "\"");
        pg.execute("postgres", "do $$ begin if not exists (select from pg_roles where rolname = 'plans_console_monitor')"
                + " then create role plans_console_monitor login in role pg_monitor, pg_read_all_data; end if; end $$");
        var running = new AtomicBoolean(true);
        Thread workload = Thread.ofVirtual().start(() -> runSelects(running));
        try {
            api("POST", "/api/v1/sources", """
                    {"name": "plans-db", "connStr": "%s", "metrics": {"query_stats": 1, "query_texts": 1, "query_plans": 1}}"""
                    .formatted(pg.connStr(DB).replace("postgres@", "plans_console_monitor@")));
            String queryid = browser.waiting(Duration.ofSeconds(30)).until(d -> {
                String id = pg.queryString(DB, "select coalesce((select queryid::text from pg_stat_statements"
                        + " where query like '%planXss%' and query like 'select name%' limit 1), '')");
                return id.isEmpty() ? null : id;
            });

            open("#/sources/plans-db/queries/" + queryid);
            String indexed = awaitPlan(text -> text.contains("using " + INDEX));
            assertThat(indexed).contains("Scan using " + INDEX + " on " + TABLE).contains("Index Cond: (status = $1)");
            WebElement article = browser.driver().findElement(By.cssSelector("#statement-plans article.plan"));
            String firstHash = article.getAttribute("data-hash");
            assertThat(article.getAttribute("data-dbname")).isEqualTo(DB);
            assertThat(browser.driver().findElements(By.cssSelector("#statement-plans .plan-changed"))).isEmpty();
            assertThat(browser.driver().findElement(By.cssSelector("#statement-plans .plan-read")).getText())
                    .startsWith("Read ").contains(firstHash);

            pg.execute(DB, "drop index \"" + INDEX + "\"");
            String changedMark = awaitText(By.cssSelector("#statement-plans .plan-changed"), t -> !t.isBlank());
            String seq = awaitPlan(text -> text.contains("Seq Scan"));
            assertThat(seq).contains("Seq Scan on " + TABLE).contains("Filter: (status = $1)").doesNotContain(INDEX);
            String secondHash = browser.driver().findElement(By.cssSelector("#statement-plans article.plan"))
                    .getAttribute("data-hash");
            assertThat(secondHash).isNotEqualTo(firstHash);
            assertThat(changedMark).startsWith("Plan changed ").contains("shape " + firstHash)
                    .endsWith("became " + secondHash + ".");
            assertThat(browser.driver().findElement(By.cssSelector("#statement-plans .plan-changed time"))
                    .getAttribute("datetime")).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");

            // The text of the statement and its plan name the table; neither became markup.
            assertThat(awaitText(By.id("statement-text"), t -> t.contains("planXss"))).contains(TABLE);
            assertThat(browser.driver().executeScript("return window.planXss === undefined")).isEqualTo(true);
            assertThat(browser.driver().findElements(By.cssSelector("#view img, #view pre b"))).isEmpty();
            browser.driver().executeScript("document.querySelector('#statement-plans').closest('section')"
                    + ".scrollIntoView({block: 'start'})");
            browser.screenshot("statement-plan");

            // The queries list marks the statement whose plan changed, linking to its page.
            open("#/sources/plans-db/queries");
            // The row is rebuilt whenever its sums change, so the mark is read and clicked in one go.
            String[] mark = browser.waiting(Duration.ofSeconds(60))
                    .ignoring(org.openqa.selenium.StaleElementReferenceException.class).until(d -> {
                        var marks = d.findElements(By.cssSelector(
                                "#statements tr[data-queryid='" + queryid + "'] a.plan-changed"));
                        if (marks.isEmpty()) {
                            return null;
                        }
                        String[] read = {marks.getFirst().getText(), marks.getFirst().getDomAttribute("title")};
                        marks.getFirst().click();
                        return read;
                    });
            assertThat(mark[0]).isEqualTo("plan changed");
            assertThat(mark[1]).contains(DB).contains("changed at");
            awaitPlan(text -> text.contains("Seq Scan"));
            assertThat(browser.driver().getCurrentUrl()).endsWith("#/sources/plans-db/queries/" + queryid);
        } finally {
            running.set(false);
            workload.join();
            api("DELETE", "/api/v1/sources/plans-db", null);
        }
    }

    private String awaitPlan(java.util.function.Predicate<String> condition) {
        return browser.waiting(Duration.ofSeconds(60)).until(d -> {
            var plans = d.findElements(By.cssSelector("#statement-plans pre.plan-text"));
            if (plans.isEmpty()) {
                return null;
            }
            String text = plans.getFirst().getText();
            return condition.test(text) ? text : null;
        });
    }

    /** The top statement: a SELECT by status on the table, with a new constant each call, until stopped. */
    private static void runSelects(AtomicBoolean running) {
        try (Connection c = pg.connect(DB); PreparedStatement select = c.prepareStatement(
                "select name from \"" + TABLE + "\" where status = ?")) {
            for (int i = 0; running.get(); i++) {
                select.setString(1, "status-" + (i % 5000));
                select.executeQuery().close();
                if (i % 50 == 0) {
                    Thread.sleep(20);
                }
            }
        } catch (SQLException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
