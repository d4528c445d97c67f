package io.pgharvest.operations;

import java.util.regex.Pattern;

/**
 * A second wall for the log view: pgharvest's code never logs a password (the source's own
 * redaction and SecretsTest see to that), but a driver's or a library's message might quote a
 * connection string. Lines shown through the API lose anything shaped like a secret.
 */
final class LogScrubber {

    static final String MASK = "********";
    /** {@code scheme://user:secret@host}: the userinfo's password. */
    private static final Pattern URI_PASSWORD = Pattern.compile("(://[^:/@\\s]*:)[^@\\s]+@");
    /** {@code password=secret}, {@code sslpassword = 'secret'}, JSON {@code "password":"secret"}. */
    private static final Pattern KEY_VALUE = Pattern.compile(
            "(?i)((?:ssl)?password|passwd|pwd|secret|token|api[_-]?key)(\"?\\s*[=:]\\s*)(\"[^\"]*\"|'[^']*'|[^\\s,;&}]+)");
    private static final Pattern BEARER = Pattern.compile("(?i)(bearer\\s+)[A-Za-z0-9._~+/=-]+");

    private LogScrubber() {
    }

    static String scrub(String message) {
        if (message == null) {
            return "";
        }
        String scrubbed = URI_PASSWORD.matcher(message).replaceAll("$1" + MASK + "@");
        scrubbed = KEY_VALUE.matcher(scrubbed).replaceAll("$1$2" + MASK);
        return BEARER.matcher(scrubbed).replaceAll("$1" + MASK);
    }
}
