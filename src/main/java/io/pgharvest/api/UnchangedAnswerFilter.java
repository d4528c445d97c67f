package io.pgharvest.api;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.InputStream;
import org.springframework.web.filter.ShallowEtagHeaderFilter;

/**
 * Gives every successful GET of the API an ETag, a hash of its body, and answers 304 without a
 * body when the request's If-None-Match names the same body. The console sends back the ETag of
 * its last answer on each blocking query, so a fleet status of 1,000 sources (about 500 KB of
 * JSON) is not sent again when the wait expires on an unchanged fleet.
 *
 * <p>Spring's filter skips answers marked {@code Cache-Control: no-store}, which every API answer
 * is ({@link RequestLimitsFilter}: no cache keeps API data). That directive forbids storing, not
 * comparing: a client that holds the last body itself may still ask whether it changed. The ETag
 * is weak because Tomcat may gzip the body: the same data in either encoding.
 */
class UnchangedAnswerFilter extends ShallowEtagHeaderFilter {

    UnchangedAnswerFilter() {
        setWriteWeakETag(true);
    }

    @Override
    protected boolean isEligibleForEtag(HttpServletRequest request, HttpServletResponse response, int statusCode,
            InputStream body) {
        return !response.isCommitted() && statusCode >= 200 && statusCode < 300
                && ("GET".equals(request.getMethod()) || "HEAD".equals(request.getMethod()));
    }
}
