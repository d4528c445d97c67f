package io.pgharvest.window;

/** The window's limits in the units its inner loops use (parsed once from {@link WindowProperties}). */
record WindowLimits(long spanMillis, int pointsPerSeries, int seriesPerSource, int samplesPerSource,
        int textsPerSource, int plansPerSource, long maxPlanBytes) {

    /** The default plan bounds: 100 plans per source, 128 KB each. */
    static final int PLANS_PER_SOURCE = 100;
    static final long MAX_PLAN_BYTES = 128 * 1024;

    /** Limits with the default sample, text and plan capacities (tests). */
    WindowLimits(long spanMillis, int pointsPerSeries, int seriesPerSource) {
        this(spanMillis, pointsPerSeries, seriesPerSource, 500, 1000);
    }

    /** Limits with the default plan capacities (tests). */
    WindowLimits(long spanMillis, int pointsPerSeries, int seriesPerSource, int samplesPerSource, int textsPerSource) {
        this(spanMillis, pointsPerSeries, seriesPerSource, samplesPerSource, textsPerSource, PLANS_PER_SOURCE,
                MAX_PLAN_BYTES);
    }
}
