package io.pgharvest.pgwatch.format;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * A configuration file could not be read or does not parse. Thrown at start-up, which it stops:
 * the file is left exactly as it is. The message names the file and, when known, the line and
 * column; anything that looks like a password is masked out of it.
 */
public class ConfigFileException extends RuntimeException {

    private static final Pattern URI_PASSWORD = Pattern.compile("(://[^:/@\\s]*:)[^@\\s]*@");
    private static final Pattern KEY_VALUE_PASSWORD = Pattern.compile("(?i)(password\\s*=\\s*)('(?:[^'\\\\]|\\\\.)*'|\\S+)");

    private final Path file;
    private final int line;
    private final int column;
    private final String problem;

    /**
     * @param line 1-based, or 0 when unknown
     * @param column 1-based, or 0 when unknown
     */
    public ConfigFileException(Path file, int line, int column, String problem, Throwable cause) {
        super(describe(file, line, column, scrub(problem)), cause);
        this.file = file;
        this.line = line;
        this.column = column;
        this.problem = scrub(problem);
    }

    public Path file() {
        return file;
    }

    /** The 1-based line of the problem, or 0 when unknown. */
    public int line() {
        return line;
    }

    public int column() {
        return column;
    }

    /** What is wrong, without the file and position. */
    public String problem() {
        return problem;
    }

    private static String describe(Path file, int line, int column, String problem) {
        var text = new StringBuilder("Cannot read ").append(file);
        if (line > 0) {
            text.append(" at line ").append(line);
            if (column > 0) {
                text.append(", column ").append(column);
            }
        }
        return text.append(": ").append(problem).toString();
    }

    /** Parser messages may quote the offending text, which in sources.yaml can hold a password. */
    static String scrub(String text) {
        if (text == null) {
            return "";
        }
        String masked = URI_PASSWORD.matcher(text).replaceAll("$1********@");
        return KEY_VALUE_PASSWORD.matcher(masked).replaceAll("$1********");
    }
}
