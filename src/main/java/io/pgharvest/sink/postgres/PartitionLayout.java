package io.pgharvest.sink.postgres;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;

/**
 * Names and time ranges of metric tables and their partitions. Partitions are aligned to whole
 * multiples of the interval since the Unix epoch (UTC midnight for daily ones), so every
 * pgharvest instance writing to one database computes the same ranges.
 */
record PartitionLayout(Duration interval) {

    /** PostgreSQL's NAMEDATALEN - 1: longer identifiers are silently truncated by the server. */
    static final int MAX_IDENTIFIER_BYTES = 63;

    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyyMMdd").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter HOUR =
            DateTimeFormatter.ofPattern("yyyyMMdd'_'HH").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter BOUND =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'+00'").withZone(ZoneOffset.UTC);

    /** Start of the partition holding {@code time}. */
    Instant start(Instant time) {
        long size = interval.toSeconds();
        return Instant.ofEpochSecond(Math.floorDiv(time.getEpochSecond(), size) * size);
    }

    /** The table a metric's storage name maps to, cut the way the server would cut it. */
    static String tableName(String metric) {
        return truncate(metric, MAX_IDENTIFIER_BYTES);
    }

    /**
     * {@code <table>_<yyyyMMdd>} for partitions of whole days starting at midnight UTC, else
     * {@code <table>_<yyyyMMdd_HH>}; at most 63 bytes.
     */
    String partitionName(String table, Instant start) {
        boolean daily = interval.toSeconds() % 86_400 == 0 && start.getEpochSecond() % 86_400 == 0;
        String suffix = "_" + (daily ? DAY : HOUR).format(start);
        if (bytes(table) + bytes(suffix) <= MAX_IDENTIFIER_BYTES) {
            return table + suffix;
        }
        // A long name keeps its start readable and stays unique through a hash of the whole name.
        String hash = "_" + md5(table).substring(0, 8);
        return truncate(table, MAX_IDENTIFIER_BYTES - bytes(hash) - bytes(suffix)) + hash + suffix;
    }

    /** A partition bound literal in UTC, e.g. {@code 2024-05-17 00:00:00+00}. */
    static String boundLiteral(Instant instant) {
        return BOUND.format(instant);
    }

    static String quoteIdentifier(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    private static int bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    private static String truncate(String s, int maxBytes) {
        if (bytes(s) <= maxBytes) {
            return s;
        }
        int end = s.length();
        while (bytes(s.substring(0, end)) > maxBytes) {
            end = s.offsetByCodePoints(end, -1);
        }
        return s.substring(0, end);
    }

    private static String md5(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is part of every JDK", e);
        }
    }
}
