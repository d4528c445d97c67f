package io.pgharvest.serverlog;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** The log directory of a server on this machine, read from the file system. */
final class LocalLogFiles implements LogFiles {

    private final Path directory;

    LocalLogFiles(Path directory) {
        this.directory = directory;
    }

    @Override
    public List<LogFile> list(String suffix) throws IOException {
        var files = new ArrayList<LogFile>();
        try (Stream<Path> entries = Files.list(directory)) {
            for (Path path : (Iterable<Path>) entries::iterator) {
                String name = path.getFileName().toString();
                if (!name.endsWith(suffix)) {
                    continue;
                }
                try {
                    BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
                    if (attributes.isRegularFile()) {
                        files.add(new LogFile(name, attributes.size(), attributes.lastModifiedTime().toInstant()));
                    }
                } catch (NoSuchFileException e) {
                    // removed while listing (log rotation cleaning up): nothing to read
                }
            }
        }
        files.sort(Comparator.comparing(LogFile::modified).thenComparing(LogFile::name));
        return files;
    }

    @Override
    public byte[] read(String name, long offset, int length) throws IOException {
        try (FileChannel channel = FileChannel.open(directory.resolve(name), StandardOpenOption.READ)) {
            ByteBuffer buffer = ByteBuffer.allocate(length);
            long position = offset;
            while (buffer.hasRemaining()) {
                int read = channel.read(buffer, position);
                if (read < 0) {
                    break;
                }
                position += read;
            }
            return Arrays.copyOf(buffer.array(), buffer.position());
        } catch (NoSuchFileException e) {
            return new byte[0];
        }
    }

    @Override
    public String describe() {
        return "the local directory " + directory;
    }
}
