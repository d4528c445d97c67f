package io.pgharvest.window;

/**
 * Fills a running collector's recent-window memory bound, so a test outside this package sees what a
 * full window does to the views (a read's rows refused) without a Spring context of its own with a
 * tiny {@code max-memory}. Closing it gives the memory back.
 */
public final class WindowBudgetFill implements AutoCloseable {

    private final MemoryBudget budget;
    private final long bytes;

    private WindowBudgetFill(MemoryBudget budget, long bytes) {
        this.budget = budget;
        this.bytes = bytes;
    }

    /** Reserves what is left of the bound of {@code recentWindow} (the application's RecentWindow bean). */
    public static WindowBudgetFill fill(Object recentWindow) {
        MemoryBudget budget = ((RecentWindow) recentWindow).budget();
        long left;
        do { // the feed may reserve between the two reads: take what is left then
            left = budget.limit() - budget.reserved();
        } while (!budget.reserve(left));
        return new WindowBudgetFill(budget, left);
    }

    @Override
    public void close() {
        budget.release(bytes);
    }
}
