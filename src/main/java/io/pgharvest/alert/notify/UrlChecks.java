package io.pgharvest.alert.notify;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;

/** The checks of a receiver's http(s) URL option; a problem never quotes the URL (it is a secret). */
public final class UrlChecks {

    private UrlChecks() {
    }

    /** Adds {@code option}'s problems ({@code "options.url is ..."}) to {@code problems}. */
    public static void check(String option, String url, List<String> problems) {
        if (url == null || url.isBlank()) {
            problems.add(option + " is required");
            return;
        }
        URI uri;
        try {
            uri = new URI(url.strip());
        } catch (URISyntaxException e) {
            problems.add(option + " is not a valid URL");
            return;
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            problems.add(option + " must be an http:// or https:// URL");
        } else if (uri.getHost() == null) {
            problems.add(option + " must name a host");
        }
        if (uri.getRawFragment() != null) {
            problems.add(option + " must not have a #fragment");
        }
    }

    /** {@code url} as a URI; only for a URL {@link #check} passed. */
    public static URI parse(String url) {
        return URI.create(url.strip());
    }
}
