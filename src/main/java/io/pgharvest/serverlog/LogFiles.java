package io.pgharvest.serverlog;

import io.pgharvest.nativemetric.NativeTarget;
import java.nio.file.Files;
import java.nio.file.Path;
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

    /**
     * The log directory of {@code target}'s server: from the file system when the server is on this
     * machine and the directory is readable here, else through SQL.
     *
     * @param directory log_directory as the server has it (relative: under {@code dataDirectory})
     */
    static LogFiles open(NativeTarget target, String directory, String dataDirectory) {
        if (target.onThisHost()) {
            Path local = directory.startsWith("/") ? Path.of(directory) : Path.of(dataDirectory, directory);
            if (Files.isDirectory(local) && Files.isReadable(local)) {
                return new LocalLogFiles(local);
            }
        }
        return new SqlLogFiles(target.sql(), directory);
    }

    record LogFile(String name, long size, Instant modified) {
    }
}
