package io.pgharvest.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Caps the blocking queries that may wait at once ({@link WaiterProperties}), in total and per
 * client (remote address): every GET with an {@code index} parameter takes a place before it
 * reaches its endpoint and gives it back when answered. Without a place the request is answered
 * at once with 429, {@code Retry-After} and problem details; nothing is parked. Runs after the
 * token check, so a request without the token takes no place. A request with a place parks among
 * the application's {@link ParkedRequests}, which answers it at once when the application closes.
 */
class WaiterLimitFilter extends OncePerRequestFilter {

    private final WaiterProperties limits;
    private final JsonMapper json;
    private final ParkedRequests parked;
    private final Semaphore places;
    private final ConcurrentHashMap<String, AtomicInteger> perClient = new ConcurrentHashMap<>();

    WaiterLimitFilter(WaiterProperties limits, JsonMapper json, ParkedRequests parked) {
        this.limits = limits;
        this.json = json;
        this.parked = parked;
        this.places = new Semaphore(limits.maxWaiting());
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (!"GET".equals(request.getMethod()) || request.getParameter("index") == null) {
            chain.doFilter(request, response);
            return;
        }
        String client = request.getRemoteAddr();
        AtomicInteger mine = perClient.compute(client, (k, count) -> {
            var held = count == null ? new AtomicInteger() : count;
            held.incrementAndGet();
            return held;
        });
        try {
            if (mine.get() > limits.maxWaitingPerClient()) {
                refuse(response, "This client already has " + limits.maxWaitingPerClient()
                        + " blocking queries waiting (pgharvest.api.blocking.max-waiting-per-client).", request);
                return;
            }
            if (!places.tryAcquire()) {
                refuse(response, limits.maxWaiting() + " blocking queries are waiting already"
                        + " (pgharvest.api.blocking.max-waiting).", request);
                return;
            }
            try {
                parked.serve(() -> chain.doFilter(request, response));
            } finally {
                places.release();
            }
        } finally {
            perClient.computeIfPresent(client, (k, count) -> count.decrementAndGet() == 0 ? null : count);
        }
    }

    /** Blocking queries waiting now (for tests and the meter's neighbours). */
    int waiting() {
        return limits.maxWaiting() - places.availablePermits();
    }

    private void refuse(HttpServletResponse response, String detail, HttpServletRequest request) throws IOException {
        response.setHeader("Retry-After", Integer.toString(limits.retryAfterSeconds()));
        ProblemResponses.write(response, json, HttpStatus.TOO_MANY_REQUESTS, ProblemTypes.TOO_MANY_WAITING,
                detail + " Retry after " + limits.retryAfterSeconds() + " s, or ask without index.",
                request.getRequestURI());
    }
}
