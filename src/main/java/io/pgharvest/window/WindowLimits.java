package io.pgharvest.window;

/** The window's limits in the units its inner loops use (parsed once from {@link WindowProperties}). */
record WindowLimits(long spanMillis, int pointsPerSeries, int seriesPerSource) {
}
