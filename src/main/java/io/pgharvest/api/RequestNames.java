package io.pgharvest.api;

import io.pgharvest.model.FieldProblem;
import java.util.List;

/** The name rule of create and replace requests: the path's name wins, the body may repeat it. */
public final class RequestNames {

    private RequestNames() {
    }

    /** The path's name, else the body's; adds a {@code name} problem when missing or contradictory. */
    public static String resolve(String pathName, String bodyName, List<FieldProblem> problems) {
        String name = pathName != null ? pathName : bodyName;
        if (name == null || name.isBlank()) {
            problems.add(new FieldProblem("name", "is required"));
        } else if (pathName != null && bodyName != null && !bodyName.equals(pathName)) {
            problems.add(new FieldProblem("name", "differs from the name in the path; renaming is not supported"));
        }
        return name;
    }
}
