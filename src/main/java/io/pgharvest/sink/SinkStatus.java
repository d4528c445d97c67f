package io.pgharvest.sink;

import io.pgharvest.model.BoundedText;
import java.time.Instant;
import java.util.Map;

/**
 * What one sink's health and the status API show.
 *
 * @param destination where the sink writes, without credentials ({@link SinkPlugin#destination})
 * @param up whether the last write or probe succeeded (false before the first one)
 * @param lastError message of the last failed write or spill, null if none since start
 * @param lastErrorAt when it happened
 * @param queued measurements waiting in memory
 * @param spilled measurements waiting in the spill log
 * @param spilledBytes size of the spill log
 * @param written measurements delivered since start
 * @param dropped measurements given up since start (spill bound, rejected data, spill failures,
 *     spill records lost to damage)
 * @param failures failed write attempts since start
 * @param quarantined spill records that could not be read and were set aside since start (each also
 *     counted in {@code dropped})
 * @param quarantinedBytes bytes of the spill log set aside in {@code quarantine/} since start
 * @param writerFailure the error that ended the writer's last loop, until a write succeeds again
 * @param writerRestarts writer loops restarted after an unexpected error since start
 * @param parked measurements kept because their destination conflicts with the sink
 * @param conflicts destination (table) to what is wrong with it, while measurements are parked
 * @param rejected measurements the sink refused for good and set aside in {@code rejected/} since start
 * @param rejectedBatches batches they came in
 */
public record SinkStatus(
        String name,
        String type,
        String destination,
        boolean up,
        String lastError,
        Instant lastErrorAt,
        long queued,
        long spilled,
        long spilledBytes,
        long written,
        long dropped,
        long failures,
        long quarantined,
        long quarantinedBytes,
        String writerFailure,
        long writerRestarts,
        long parked,
        Map<String, String> conflicts,
        long rejected,
        long rejectedBatches) {

    /** Texts a receiver or a disk wrote are kept bounded and escaped (docs/security.md, "Limits"). */
    public SinkStatus {
        lastError = BoundedText.of(lastError);
        writerFailure = BoundedText.of(writerFailure);
    }
}
