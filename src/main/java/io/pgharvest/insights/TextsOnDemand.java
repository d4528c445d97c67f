package io.pgharvest.insights;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.NativeTarget;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * query_texts' offer to query_stats of one source (kept on the source's
 * {@link io.pgharvest.nativemetric.SourceShelf}): the texts of the top statements a query_stats
 * read found that query_texts does not know yet, read in the same tick instead of at query_texts'
 * next turn (every 10 minutes in the presets), so that a statement new to the top shows its text
 * on the first read that ranks it. The offer stands while query_texts runs on its schedule: a
 * source that stopped collecting query_texts (its collector was dropped) gets no texts this way
 * either. Used by the source's reaper thread only.
 */
final class TextsOnDemand {

    /** The texts of statements of the source's database that query_texts does not know yet. */
    @FunctionalInterface
    interface Reader {

        /**
         * @param target query_stats' target on the source's session
         * @param ids the query ids a query_stats read ranked, most time first
         * @return the rows of the texts that were new (as query_texts delivers them); empty when
         *     every id's text is known or was asked for without an answer since query_texts' last turn
         */
        List<Measurement.Row> readUnknown(NativeTarget target, List<Long> ids) throws Exception;
    }

    private Reader reader;
    private String storageName;
    private Instant offeredAt;
    private Duration interval;

    /** query_texts ran at {@code now} (every {@code interval}) and delivers under {@code storageName}. */
    void offer(Reader reader, String storageName, Instant now, Duration interval) {
        this.reader = reader;
        this.storageName = storageName;
        this.offeredAt = now;
        this.interval = interval;
    }

    /**
     * The texts query_texts lacks of {@code ranked}, under query_texts' storage name; empty when
     * query_texts is not collected (it did not run within two of its intervals) or knows them all.
     */
    Map<String, List<Measurement.Row>> readUnknown(NativeTarget target, List<Long> ranked) throws Exception {
        if (reader == null || ranked.isEmpty()
                || !offeredAt.plus(interval.multipliedBy(2)).isAfter(target.now())) {
            return Map.of();
        }
        List<Measurement.Row> rows = reader.readUnknown(target, ranked);
        return rows.isEmpty() ? Map.of() : Map.of(storageName, rows);
    }
}
