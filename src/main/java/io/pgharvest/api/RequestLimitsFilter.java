package io.pgharvest.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import io.pgharvest.model.FieldProblem;
import java.io.IOException;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Limits request bodies while they are read, and puts security headers on every answer.
 *
 * <p>A body larger than {@link #MAX_BODY_BYTES} ({@link #MAX_IMPORT_BYTES} for the pgwatch
 * import) is refused with 413 problem details: at once when its Content-Length says so, and
 * otherwise as soon as the limit is passed while reading (chunked bodies), so a huge body is
 * never held in memory. The per-field limits (names, tags, SQL) are the kernel's rules.
 *
 * <p>A request path holding ';' is refused with 400 problem details before anything else.
 *
 * <p>Headers: {@code X-Content-Type-Options: nosniff}, {@code X-Frame-Options: DENY},
 * {@code Referrer-Policy: no-referrer}; on the API and actuator (JSON only) also
 * {@code Cache-Control: no-store} and a {@code Content-Security-Policy} that allows nothing; on the
 * console (everything else but Swagger UI) a policy that allows only the console's own scripts,
 * styles and API calls, never inline script. Swagger UI keeps its own needs.
 */
class RequestLimitsFilter extends OncePerRequestFilter {

    static final long MAX_BODY_BYTES = 1024 * 1024;
    public static final long MAX_IMPORT_BYTES = 16 * 1024 * 1024;
    private static final String IMPORT_PATH = "/api/v1/import";
    static final String CONSOLE_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
            + " connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    private final JsonMapper json;
    private final String actuatorBase;

    RequestLimitsFilter(JsonMapper json, String actuatorBase) {
        this.json = json;
        this.actuatorBase = actuatorBase;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String path = request.getRequestURI();
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("X-Frame-Options", "DENY");
        response.setHeader("Referrer-Policy", "no-referrer");
        if (path.startsWith("/api/") || path.startsWith(actuatorBase)) {
            response.setHeader("Cache-Control", "no-store");
            response.setHeader("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
        } else if (!path.startsWith("/swagger-ui") && !path.startsWith("/v3/api-docs")) {
            // The console (static files at /): its own scripts and styles only, no inline script or
            // style, no plugins, talks only to this server. Revalidated so an upgrade shows at once.
            response.setHeader("Cache-Control", "no-cache");
            response.setHeader("Content-Security-Policy", CONSOLE_POLICY);
        }
        if (path.indexOf(';') >= 0) {
            // Spring's path matching drops ";..." from a segment: PUT /api/v1/sources/a;b would
            // replace source a. No pgharvest path takes matrix parameters.
            ProblemResponses.write(response, json, HttpStatus.BAD_REQUEST, ProblemTypes.MALFORMED,
                    "The request path holds ';' (matrix parameters), which no pgharvest path accepts.", null,
                    List.of(new FieldProblem("path", "must not contain ';'")));
            return;
        }
        long limit = path.startsWith(IMPORT_PATH) ? MAX_IMPORT_BYTES : MAX_BODY_BYTES;
        if (request.getContentLengthLong() > limit) {
            ProblemResponses.write(response, json, HttpStatus.CONTENT_TOO_LARGE, ProblemTypes.TOO_LARGE,
                    tooLarge(limit), path);
            return;
        }
        chain.doFilter(new LimitedRequest(request, limit), response);
    }

    static String tooLarge(long limit) {
        return "The request body is larger than " + limit + " bytes.";
    }

    /** Thrown while reading a body past its limit; the exception handler answers 413. */
    static final class BodyTooLargeException extends IOException {
        final long limit;

        BodyTooLargeException(long limit) {
            super(tooLarge(limit));
            this.limit = limit;
        }
    }

    private static final class LimitedRequest extends HttpServletRequestWrapper {
        private final long limit;
        private ServletInputStream limited;

        LimitedRequest(HttpServletRequest request, long limit) {
            super(request);
            this.limit = limit;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (limited == null) {
                limited = new LimitedStream(super.getInputStream(), limit);
            }
            return limited;
        }
    }

    private static final class LimitedStream extends ServletInputStream {
        private final ServletInputStream in;
        private final long limit;
        private long read;

        LimitedStream(ServletInputStream in, long limit) {
            this.in = in;
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = in.read(buffer, offset, length);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) throws BodyTooLargeException {
            read += n;
            if (read > limit) {
                throw new BodyTooLargeException(limit);
            }
        }

        @Override
        public boolean isFinished() {
            return in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            in.setReadListener(listener);
        }
    }
}
