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
 * each conflict is reported by destination. Any other exception means "nothing of this batch
 * was delivered, retry it".
 */
public class SinkRejectedException extends Exception {

    private final transient List<Measurement> rejected;
    private final boolean parked;
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
        super(message, cause);
        this.rejected = List.copyOf(rejected);
        this.parked = parked;
        this.conflicts = Map.copyOf(conflicts);
    }

    public List<Measurement> rejected() {
        return rejected;
    }

    public boolean parked() {
        return parked;
    }

    public Map<String, String> conflicts() {
        return conflicts;
    }
}
