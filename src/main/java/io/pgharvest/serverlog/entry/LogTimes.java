package io.pgharvest.serverlog.entry;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The times the server writes in its log ({@code %m}, {@code %t}, csvlog's and jsonlog's
 * timestamps: {@code 2026-12-02 05:37:01.123 UTC}, the zone as log_timezone abbreviates it, or
 * {@code %n}'s epoch seconds). A zone abbreviation Java does not know (a numeric one such as
 * {@code -03} is read as an offset) gives no time rather than a wrong one.
 */
final class LogTimes {

    private static final DateTimeFormatter LOCAL = new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd HH:mm:ss")
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd()
            .toFormatter();
    private static final Map<String, ZoneId> ZONES = new ConcurrentHashMap<>();

    private LogTimes() {
    }

    /** The instant of {@code text}, null when it is not a time the server writes. */
    static Instant parse(String text) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        try {
            int space = text.lastIndexOf(' ');
            if (space < 0) {
                return epoch(text);
            }
            LocalDateTime local = local(text, space);
            ZoneId zone = zone(text.substring(space + 1));
            return zone == null ? null : local.atZone(zone).toInstant();
        } catch (DateTimeException | NumberFormatException e) {
            return null;
        }
    }

    /**
     * The date and time before the zone: the server's one layout ({@code yyyy-MM-dd HH:mm:ss} and
     * an optional fraction) read digit by digit, since a formatter's parse was an eighth of the
     * parse CPU; anything else goes to the formatter.
     */
    private static LocalDateTime local(String text, int end) {
        boolean layout = end >= 19 && text.charAt(4) == '-' && text.charAt(7) == '-' && text.charAt(10) == ' '
                && text.charAt(13) == ':' && text.charAt(16) == ':' && (end == 19 || text.charAt(19) == '.')
                && end <= 29;
        if (!layout) {
            return LocalDateTime.parse(text.substring(0, end), LOCAL);
        }
        int nanos = 0;
        for (int i = 20; i < 29; i++) {
            nanos = nanos * 10 + (i < end ? digit(text, i) : 0);
        }
        return LocalDateTime.of(number(text, 0, 4), number(text, 5, 7), number(text, 8, 10), number(text, 11, 13),
                number(text, 14, 16), number(text, 17, 19), nanos);
    }

    private static int number(String text, int from, int to) {
        int value = 0;
        for (int i = from; i < to; i++) {
            value = value * 10 + digit(text, i);
        }
        return value;
    }

    private static int digit(String text, int at) {
        char c = text.charAt(at);
        if (c < '0' || c > '9') {
            throw new NumberFormatException("not a digit in a log time: " + c);
        }
        return c - '0';
    }

    private static Instant epoch(String text) {
        int dot = text.indexOf('.');
        long seconds = Long.parseLong(dot < 0 ? text : text.substring(0, dot));
        long millis = dot < 0 ? 0 : Long.parseLong((text.substring(dot + 1) + "000").substring(0, 3));
        return Instant.ofEpochSecond(seconds, millis * 1_000_000);
    }

    private static ZoneId zone(String abbreviation) {
        return ZONES.computeIfAbsent(abbreviation, LogTimes::lookUp);
    }

    private static ZoneId lookUp(String abbreviation) {
        if (abbreviation.startsWith("+") || abbreviation.startsWith("-")) {
            try {
                return ZoneOffset.of(abbreviation.length() == 3 ? abbreviation + ":00" : abbreviation);
            } catch (DateTimeException e) {
                return null;
            }
        }
        if (abbreviation.equals("UTC") || abbreviation.equals("GMT")) {
            return ZoneOffset.UTC;
        }
        try {
            return ZoneId.of(abbreviation, ZoneId.SHORT_IDS);
        } catch (DateTimeException e) {
            try {
                return ZoneId.of(abbreviation);
            } catch (DateTimeException unknown) {
                return null;
            }
        }
    }
}
