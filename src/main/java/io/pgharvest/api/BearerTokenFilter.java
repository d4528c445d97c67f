package io.pgharvest.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.LinkedHashMap;
import java.util.Set;
import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Requires {@code Authorization: Bearer <token>} on {@code /api/**} and on every actuator endpoint
 * except the liveness and readiness probes; everything else (OpenAPI description, Swagger UI)
 * is public because it holds no secrets.
 *
 * <p>A plain servlet filter rather than Spring Security: there is one static token, no users,
 * roles, sessions or cookies (so no CSRF), and Spring Security would add a filter chain and its
 * configuration for what is one constant-time comparison.
 *
 * <p>Wrong tokens are counted per client ({@link FailedAuthentications}): past a few per minute the
 * client is answered 429 with {@code Retry-After} for a growing back-off, whatever it sends. A
 * request without a token guesses nothing and is not counted.
 *
 * <p>An authenticated request carries a {@link Principal}, which is what makes the actuator show
 * health details ({@code management.endpoint.health.show-details=when-authorized}).
 */
class BearerTokenFilter extends OncePerRequestFilter {

    private static final String BEARER = "bearer ";

    private final ApiToken token;
    private final String actuatorBase;
    private final Set<String> publicProbes;
    private final JsonMapper json;
    private final FailedAuthentications failures;

    BearerTokenFilter(ApiToken token, String actuatorBasePath, JsonMapper json, FailedAuthentications failures) {
        this.token = token;
        this.failures = failures;
        this.actuatorBase = actuatorBasePath;
        this.publicProbes = Set.of(actuatorBasePath + "/health/liveness", actuatorBasePath + "/health/readiness");
        this.json = json;
    }

    /** Uses the servlet path, which the container has decoded and normalized ({@code ..}, {@code ;}). */
    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        boolean api = path.equals("/api") || path.startsWith("/api/");
        boolean actuator = path.equals(actuatorBase) || path.startsWith(actuatorBase + "/");
        return !(api || (actuator && !publicProbes.contains(path)));
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String client = request.getRemoteAddr();
        long wait = failures.retryAfterSeconds(client);
        if (wait > 0) {
            throttle(request, response, wait);
            return;
        }
        String header = request.getHeader("Authorization");
        if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            reject(request, response, "Bearer realm=\"pgharvest\"",
                    "This endpoint needs 'Authorization: Bearer <token>'; the token is pgharvest.api.token,"
                            + " or the content of <data-dir>/api-token.");
            return;
        }
        if (!token.matches(header.substring(BEARER.length()).strip())) {
            long backOff = failures.failed(client);
            if (backOff > 0) {
                throttle(request, response, backOff);
                return;
            }
            reject(request, response, "Bearer realm=\"pgharvest\", error=\"invalid_token\"",
                    "The bearer token is not the configured one.");
            return;
        }
        chain.doFilter(new AuthenticatedRequest(request), response);
    }

    private void reject(HttpServletRequest request, HttpServletResponse response, String challenge, String detail)
            throws IOException {
        response.setHeader("WWW-Authenticate", challenge);
        ProblemResponses.write(response, json, HttpStatus.UNAUTHORIZED, ProblemTypes.UNAUTHORIZED, detail,
                request.getRequestURI());
    }

    private void throttle(HttpServletRequest request, HttpServletResponse response, long seconds) throws IOException {
        response.setHeader("Retry-After", Long.toString(seconds));
        ProblemResponses.write(response, json, HttpStatus.TOO_MANY_REQUESTS, ProblemTypes.TOO_MANY_FAILURES,
                "Too many wrong tokens from this address; retry after " + seconds
                        + " s (pgharvest.api.auth-throttle).", request.getRequestURI());
    }

    /** Marks the request as authenticated for the actuator, without roles. */
    private static final class AuthenticatedRequest extends HttpServletRequestWrapper {

        private static final Principal PRINCIPAL = () -> "api-token";

        AuthenticatedRequest(HttpServletRequest request) {
            super(request);
        }

        @Override
        public Principal getUserPrincipal() {
            return PRINCIPAL;
        }

        @Override
        public String getAuthType() {
            return "Bearer";
        }
    }
}
