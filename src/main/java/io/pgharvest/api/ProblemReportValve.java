package io.pgharvest.api;

import java.io.IOException;
import java.io.Writer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;
import org.springframework.http.HttpStatus;

/**
 * Tomcat's own error report, for requests it refuses before Spring sees them (an encoded slash,
 * an over-long request line or header): problem details instead of an HTML page. Shows the
 * status only, never an exception. Tomcat creates it by class name, hence public.
 */
public final class ProblemReportValve extends ErrorReportValve {

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int status = response.getStatus();
        if (status < 400 || response.getContentWritten() > 0) {
            return;
        }
        var ioAllowed = new AtomicBoolean(true);
        response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, ioAllowed);
        if (!ioAllowed.get()) {
            return;
        }
        HttpStatus resolved = HttpStatus.resolve(status);
        String title = resolved == null ? "Error" : resolved.getReasonPhrase();
        String json = "{\"type\":\"" + ProblemTypes.forStatus(status) + "\",\"title\":\"" + title + "\",\"status\":"
                + status + ",\"detail\":\"The server refused the request before it reached pgharvest (for example an"
                + " encoded slash in the path, or a request line or header that is too long).\"}";
        try {
            response.setContentType("application/problem+json");
            response.setCharacterEncoding("UTF-8");
            Writer writer = response.getReporter();
            if (writer != null) {
                writer.write(json);
                response.finishResponse();
            }
        } catch (IOException | IllegalStateException e) {
            // The client is gone or the response cannot be written: nothing more to report.
        }
    }
}
