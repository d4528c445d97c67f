package io.pgharvest.window;

import java.util.List;
import java.util.Map;

/**
 * What the window's snapshot holds: every source's series (points as recorded, counters not yet
 * rates) and its statement texts, copied out of the window at {@code takenAtMillis}. Plans and
 * session samples are not kept: plans are re-read within plan-every, samples are only minutes old.
 *
 * @param takenAtMillis when the picture was copied, epoch milliseconds
 * @param sources one entry per source
 */
record WindowPicture(long takenAtMillis, List<SourcePicture> sources) {

    WindowPicture {
        sources = List.copyOf(sources);
    }

    /** One source's series and texts (query id to normalized text). */
    record SourcePicture(String source, List<SeriesPicture> series, Map<String, String> texts) {

        SourcePicture {
            series = List.copyOf(series);
            texts = Map.copyOf(texts);
        }
    }

    /** One series' points, oldest first; {@code times} and {@code values} have the same length. */
    record SeriesPicture(SeriesKey key, long[] times, double[] values) {

        SeriesPicture {
            if (times.length != values.length) {
                throw new IllegalArgumentException("times and values differ in length");
            }
        }
    }

    /** Points over all series: what the picture costs to write (16 bytes a point). */
    long points() {
        return sources.stream().flatMap(source -> source.series().stream()).mapToLong(series -> series.times().length)
                .sum();
    }
}
