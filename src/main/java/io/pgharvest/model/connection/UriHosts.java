package io.pgharvest.model.connection;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The host list of a URI's authority, {@code host[:port][,host[:port]]...}, as libpq's connection
 * URIs write it and a kind's own URI syntax may too: an IPv6 host in brackets, names
 * percent-encoded, a port optional and digits only. Errors name the entry's position, never its text (a misplaced
 * character can shift a password's characters into the host list).
 */
public final class UriHosts {

    /**
     * One entry of the list.
     *
     * @param host the host, percent-decoded, without brackets; may be empty
     * @param port the port as written, digits only; empty when the entry has none
     */
    public record Entry(String host, String port) {
    }

    private UriHosts() {
    }

    /**
     * The entries of {@code hostList}, in order.
     *
     * @param entry names the entry at a 1-based position in errors, e.g. {@code host 2 of the URI}
     * @throws InvalidConnectionStringException for a '[' without ']', text after ']', or a port
     *     that is not digits
     */
    public static List<Entry> split(String hostList, IntFunction<String> entry) {
        List<Entry> entries = new ArrayList<>();
        String[] texts = hostList.split(",", -1);
        for (int i = 0; i < texts.length; i++) {
            String text = texts[i];
            String position = entry.apply(i + 1);
            String host;
            String port;
            if (text.startsWith("[")) {
                int close = text.indexOf(']');
                if (close < 0) {
                    throw new InvalidConnectionStringException("'[' without ']' in " + position);
                }
                host = text.substring(1, close);
                String after = text.substring(close + 1);
                if (!after.isEmpty() && !after.startsWith(":")) {
                    throw new InvalidConnectionStringException("unexpected text after ']' in " + position);
                }
                port = after.isEmpty() ? "" : after.substring(1);
            } else {
                int colon = text.indexOf(':');
                host = colon < 0 ? text : text.substring(0, colon);
                port = colon < 0 ? "" : text.substring(colon + 1);
            }
            if (!port.isEmpty() && !port.chars().allMatch(Character::isDigit)) {
                throw new InvalidConnectionStringException("the port of " + position + " is not a number "
                        + "(percent-encode characters such as @ : / in the user name and password)");
            }
            entries.add(new Entry(PercentEncoding.decode(host, position), port));
        }
        return entries;
    }
}
