package io.pgharvest.window;

/** The window's limits in the units its inner loops use (parsed once from {@link WindowProperties}). */
record WindowLimits(long spanMillis, int pointsPerSeries, int seriesPerSource, int samplesPerSource,
        int textsPerSource) {

    /** Limits with the default sample and text capacities (tests). */
    WindowLimits(long spanMillis, int pointsPerSeries, int seriesPerSource) {
        this(spanMillis, pointsPerSeries, seriesPerSource, 500, 1000);
    }
}
