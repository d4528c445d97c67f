package io.pgharvest.serverlog;

import java.time.Instant;
import java.util.List;

/** The server's log directory, read locally or through SQL. */
interface LogFiles {

    /** The files whose name ends with {@code suffix}, oldest modification first. */
    List<LogFile> list(String suffix) throws Exception;

    /** Up to {@code length} bytes of {@code name} from {@code offset}; fewer at the end, empty when gone. */
    byte[] read(String name, long offset, int length) throws Exception;

    /** Where the files are read from, for the status. */
    String describe();

    record LogFile(String name, long size, Instant modified) {
    }
}
