package io.pgharvest.window;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The share of a range's session samples ({@code query_samples}) that were in one wait event.
 *
 * @param waitEventType the kind of wait; empty for samples that were not waiting (running on CPU)
 * @param waitEvent the wait event; empty when not waiting
 * @param samples how many samples of the range were in it
 * @param share samples / all samples of the range, 0 to 1
 */
public record WaitShare(String waitEventType, String waitEvent, long samples, double share) {

    /** Most samples first, then by name: the order of every list of shares. */
    public static final Comparator<WaitShare> MOST_FIRST = Comparator.comparingLong(WaitShare::samples).reversed()
            .thenComparing(WaitShare::waitEventType).thenComparing(WaitShare::waitEvent);

    /** The shares of {@code counts} (type and event to samples), most first. */
    public static List<WaitShare> of(Map<List<String>, Long> counts) {
        long all = counts.values().stream().mapToLong(Long::longValue).sum();
        var shares = new ArrayList<WaitShare>(counts.size());
        counts.forEach((event, samples) -> shares.add(new WaitShare(event.get(0), event.get(1), samples,
                all == 0 ? 0 : (double) samples / all)));
        shares.sort(MOST_FIRST);
        return shares;
    }

    /** The shares of the window's own samples. */
    static List<WaitShare> ofSamples(List<Sample> samples) {
        var counts = new LinkedHashMap<List<String>, Long>();
        for (Sample sample : samples) {
            counts.merge(List.of(orEmpty(sample.waitEventType()), orEmpty(sample.waitEvent())), 1L, Long::sum);
        }
        return of(counts);
    }

    private static String orEmpty(String text) {
        return text == null ? "" : text;
    }
}
