package io.pgharvest.sink.spill;

import io.pgharvest.support.AtomicFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What earlier runs left in a spill directory: its segments in order, each scanned up to its
 * last whole record and positioned by the {@link SpillCursor}. Called once by
 * {@link SpillLog#open}, before the log is shared.
 */
final class SpillRecovery {

    private static final Logger log = LoggerFactory.getLogger(SpillRecovery.class);

    private SpillRecovery() {
    }

    /**
     * The segments of {@code dir} that hold undelivered records, oldest first; fully delivered
     * ones are deleted, ones without a valid header moved aside, unexpected files ignored.
     */
    static List<SpillSegment> segments(Path dir) throws IOException {
        SpillCursor cursor = SpillCursor.read(dir);
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(p -> p.getFileName().toString().endsWith(SpillSegment.SUFFIX)).sorted().toList();
        }
        var found = new ArrayList<SpillSegment>();
        for (Path file : files) {
            String name = file.getFileName().toString();
            long id;
            try {
                id = Long.parseLong(name.substring(0, name.length() - SpillSegment.SUFFIX.length()));
            } catch (NumberFormatException e) {
                log.warn("Ignoring unexpected file {} in spill directory {}", name, dir);
                continue;
            }
            AtomicFiles.restrictToOwner(file); // a segment an older version created 0644
            SpillSegment segment = SpillSegment.scan(id, file);
            if (segment == null) {
                continue;
            }
            if (cursor != null && cursor.segmentId() == id) {
                if (cursor.delivered() <= segment.records && cursor.offset() <= segment.end) {
                    segment.delivered = (int) cursor.delivered();
                    segment.readOffset = cursor.offset();
                } else {
                    log.warn("Spill cursor of {} does not match segment {}; delivering it from its start",
                            dir, name);
                }
            }
            if (segment.undelivered() == 0) {
                Files.delete(file);
                continue;
            }
            found.add(segment);
        }
        return found;
    }
}
