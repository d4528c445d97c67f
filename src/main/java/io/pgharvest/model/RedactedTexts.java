package io.pgharvest.model;

import io.pgharvest.model.sql.LiteralRedactor;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link LiteralRedactor#redact} remembered: the statement texts a fleet publishes are the same
 * tick after tick (pg_stat_statements' normalized texts, the same application's queries on every
 * database), and lexing each again was 13 % of pgharvest's CPU and a third of its allocation at
 * 300 sources (docs/performance.md, "The current profile"). The result is the redactor's, so
 * nothing about what leaves changes.
 *
 * <p>Bounded by characters, in two generations: texts go into the current one; when it holds
 * {@link #GENERATION_CHARS}, it becomes the previous one and the one before is dropped. A text
 * read in the previous generation moves to the current one, so what every tick publishes stays,
 * and the memory held is at most twice the bound (keys and values, about 4 MB for 1 M characters
 * each way, plus the maps). Texts longer than {@link #LONGEST} are lexed every time: few, and they
 * would crowd out the rest. The unredacted keys stay in pgharvest's memory only, where the row
 * that carried them already was.
 */
final class RedactedTexts {

    /** Characters of original texts per generation. */
    static final long GENERATION_CHARS = 1 << 20;
    static final int LONGEST = 8 * 1024;

    private static volatile ConcurrentHashMap<String, String> current = new ConcurrentHashMap<>();
    private static volatile ConcurrentHashMap<String, String> previous = new ConcurrentHashMap<>();
    private static final AtomicLong currentChars = new AtomicLong();

    private RedactedTexts() {
    }

    /** {@code text} without its literals, as {@link LiteralRedactor#redact} returns it. */
    static String redact(String text) {
        if (text == null || text.isEmpty() || text.length() > LONGEST) {
            return LiteralRedactor.redact(text);
        }
        ConcurrentHashMap<String, String> now = current;
        String known = now.get(text);
        if (known != null) {
            return known;
        }
        known = previous.get(text);
        String redacted = known != null ? known : LiteralRedactor.redact(text);
        if (now.putIfAbsent(text, redacted) == null
                && currentChars.addAndGet(text.length()) > GENERATION_CHARS) {
            turn(now);
        }
        return redacted;
    }

    /** The current generation becomes the previous one; only the thread that filled {@code full} turns it. */
    private static synchronized void turn(ConcurrentHashMap<String, String> full) {
        if (current == full) {
            previous = full;
            current = new ConcurrentHashMap<>();
            currentChars.set(0);
        }
    }
}
