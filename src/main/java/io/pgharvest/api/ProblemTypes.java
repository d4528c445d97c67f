package io.pgharvest.api;

import java.net.URI;

/** The {@code type} URIs of pgharvest's RFC 9457 problem details; docs/api.md explains each. */
public final class ProblemTypes {

    private static final String BASE = "https://pgharvest.io/problems/";

    /** Input that breaks a validation rule; {@code errors} names each field. */
    public static final URI INVALID = URI.create(BASE + "invalid-input");
    /** A body that is not JSON, or not the expected JSON (unknown or mistyped property). */
    public static final URI MALFORMED = URI.create(BASE + "malformed-request");
    /** A query parameter such as {@code index} or {@code wait} that does not parse. */
    public static final URI BAD_PARAMETER = URI.create(BASE + "bad-parameter");
    public static final URI UNAUTHORIZED = URI.create(BASE + "unauthorized");
    public static final URI NOT_FOUND = URI.create(BASE + "not-found");
    public static final URI METHOD_NOT_ALLOWED = URI.create(BASE + "method-not-allowed");
    public static final URI NOT_ACCEPTABLE = URI.create(BASE + "not-acceptable");
    public static final URI UNSUPPORTED_MEDIA_TYPE = URI.create(BASE + "unsupported-media-type");
    /** A create of a name that exists. */
    public static final URI DUPLICATE = URI.create(BASE + "duplicate");
    /** A delete of a metric or preset that sources or presets still use; {@code usedBy} lists them. */
    public static final URI IN_USE = URI.create(BASE + "in-use");
    /** A delete of a built-in metric or preset. */
    public static final URI BUILT_IN = URI.create(BASE + "built-in");
    /** A conditional write ({@code ?cas=N}) whose modify index is no longer the item's; {@code modifyIndex} is the current one. */
    public static final URI STALE_INDEX = URI.create(BASE + "stale-index");
    /** Any other client error. */
    public static final URI BAD_REQUEST = URI.create(BASE + "bad-request");
    /** The request (body or URL) is larger than pgharvest accepts. */
    public static final URI TOO_LARGE = URI.create(BASE + "too-large");
    /** A blocking query refused because too many wait already (429 with Retry-After). */
    public static final URI TOO_MANY_WAITING = URI.create(BASE + "too-many-waiting");
    /** A client that sent too many wrong API tokens, during its back-off (429 with Retry-After). */
    public static final URI TOO_MANY_FAILURES = URI.create(BASE + "too-many-failures");
    /** A write while the configuration database (pgharvest.store.url) cannot be reached; nothing changed. */
    public static final URI STORE_UNAVAILABLE = URI.create(BASE + "store-unavailable");
    public static final URI INTERNAL = URI.create(BASE + "internal-error");

    private ProblemTypes() {
    }

    /** The type for a status code without a more specific cause. */
    public static URI forStatus(int status) {
        return switch (status) {
            case 400 -> BAD_REQUEST;
            case 401 -> UNAUTHORIZED;
            case 404 -> NOT_FOUND;
            case 405 -> METHOD_NOT_ALLOWED;
            case 406 -> NOT_ACCEPTABLE;
            case 415 -> UNSUPPORTED_MEDIA_TYPE;
            default -> status >= 500 ? INTERNAL : BAD_REQUEST;
        };
    }
}
