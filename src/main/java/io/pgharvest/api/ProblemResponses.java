package io.pgharvest.api;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import tools.jackson.databind.json.JsonMapper;

/** Problem details written by servlet filters and valves, outside Spring MVC's exception handling. */
final class ProblemResponses {

    private ProblemResponses() {
    }

    static void write(HttpServletResponse response, JsonMapper json, HttpStatus status, URI type, String detail,
            String instance) throws IOException {
        write(response, json, status, type, detail, instance, null);
    }

    /** With {@code errors} ({@code field}, {@code message} each) when not null. */
    static void write(HttpServletResponse response, JsonMapper json, HttpStatus status, URI type, String detail,
            String instance, java.util.List<io.pgharvest.model.FieldProblem> errors) throws IOException {
        var problem = new LinkedHashMap<String, Object>();
        problem.put("type", type.toString());
        problem.put("title", status.getReasonPhrase());
        problem.put("status", status.value());
        problem.put("detail", detail);
        if (instance != null) {
            problem.put("instance", instance);
        }
        if (errors != null) {
            problem.put("errors", errors);
        }
        response.setStatus(status.value());
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getOutputStream().write(json.writeValueAsBytes(problem));
    }
}
