package io.pgharvest.sink;

import io.pgharvest.model.Measurement;
import java.util.List;
import java.util.Map;

/**
 * Thrown by {@link Sink#write} when some measurements cannot be written while the sink itself
 * works: the rest of the batch WAS delivered. Either their data is unacceptable (a value too
 * large: counted as dropped, never retried), or their destination conflicts with what the sink
 * holds (a table of another shape under the metric's name): such measurements are
 * {@linkplain #parked() parked}, kept on disk and retried until the conflict is resolved, and
 * each conflict is reported by destination; or the receiver refused them for good (an HTTP 400 of a
 * remote-write receiver): such measurements are {@linkplain #quarantined() quarantined}, kept aside
 * on disk for inspection and counted, never retried. Any other exception means "nothing of this
 * batch was delivered, retry it".
 */
public class SinkRejectedException extends Exception {

    private final transient List<Measurement> rejected;
    private final boolean parked;
    private final boolean quarantined;
    private final Map<String, String> conflicts;

    public SinkRejectedException(String message, List<Measurement> rejected, Throwable cause) {
        this(message, rejected, false, Map.of(), cause);
    }

    /**
     * @param parked keep the rejected measurements and retry them later
     * @param conflicts destination (e.g. a table name) to what is wrong with it
     */
    public SinkRejectedException(String message, List<Measurement> rejected, boolean parked,
            Map<String, String> conflicts, Throwable cause) {
        this(message, rejected, parked, false, conflicts, cause);
    }

    private SinkRejectedException(String message, List<Measurement> rejected, boolean parked, boolean quarantined,
            Map<String, String> conflicts, Throwable cause) {
        super(message, cause);
        this.rejected = List.copyOf(rejected);
        this.parked = parked;
        this.quarantined = quarantined;
        this.conflicts = Map.copyOf(conflicts);
    }

    /**
     * The receiver refused {@code rejected} in a way no retry can change (e.g. HTTP 400): they are
     * set aside in the sink's {@code rejected/} log and counted, and delivery goes on.
     */
    public static SinkRejectedException quarantined(String message, List<Measurement> rejected, Throwable cause) {
        return new SinkRejectedException(message, rejected, false, true, Map.of(), cause);
    }

    public List<Measurement> rejected() {
        return rejected;
    }

    public boolean parked() {
        return parked;
    }

    public boolean quarantined() {
        return quarantined;
    }

    public Map<String, String> conflicts() {
        return conflicts;
    }
}
