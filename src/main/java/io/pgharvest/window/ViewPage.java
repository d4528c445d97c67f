package io.pgharvest.window;

import io.pgharvest.model.FieldProblem;
import io.swagger.v3.oas.annotations.Parameter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One page of a big view's rows (tables, indexes, sessions): sorted by one of the row's fields, in
 * either order, from {@code offset}, at most {@code limit} rows. No parameter given, the page is every
 * row in the view's own order, as before paging existed. A row without the sort field's value
 * (null) comes last in either order; rows with equal values keep the view's order.
 *
 * @param sort the row field sorted by, null for the view's own order
 * @param limit the most rows answered, null for all
 */
record ViewPage(String sort, boolean descending, Integer limit, int offset) {

    static final int MAX_LIMIT = 1000;
    static final ViewPage ALL = new ViewPage(null, true, null, 0);

    /** The paging parameters of a view's request as given, unparsed (each absent is null). */
    record Parameters(
            @Parameter(description = "A field of the rows to sort by, as named in the answer; without it, the view's"
                    + " own order") String sort,
            @Parameter(description = "asc or desc (the default); rows without the field's value come last") String order,
            @Parameter(description = "The most rows answered, 1 to " + MAX_LIMIT + "; without it, all") String limit,
            @Parameter(description = "How many of the sorted rows to skip, 0 (the default) or more") String offset) {
    }

    /** The sortable fields of a row type: its text, number and flag components, by their JSON names. */
    static Set<String> sortable(Class<? extends Record> rowType) {
        return keys(rowType).keySet();
    }

    /** The page the parameters ask for; their problems are added to {@code problems} (and ALL returned). */
    static ViewPage parse(Parameters given, Class<? extends Record> rowType, List<FieldProblem> problems) {
        String sort = given.sort();
        String order = given.order();
        int before = problems.size();
        if (sort != null && !sortable(rowType).contains(sort)) {
            problems.add(new FieldProblem("sort", "must be one of " + String.join(", ", sortable(rowType))));
        }
        if (order != null && !order.equals("asc") && !order.equals("desc")) {
            problems.add(new FieldProblem("order", "must be asc or desc"));
        }
        Integer rows = whole(given.limit(), "limit", 1, MAX_LIMIT, problems);
        Integer from = whole(given.offset(), "offset", 0, Integer.MAX_VALUE, problems);
        if (problems.size() > before) {
            return ALL;
        }
        return new ViewPage(sort, !"asc".equals(order), rows, from == null ? 0 : from);
    }

    private static Integer whole(String given, String field, int min, int max, List<FieldProblem> problems) {
        if (given == null) {
            return null;
        }
        try {
            int value = Integer.parseInt(given.strip());
            if (value >= min && value <= max) {
                return value;
            }
        } catch (NumberFormatException e) {
            // named below, as a value out of range is
        }
        problems.add(new FieldProblem(field, "must be a whole number from " + min + " to " + max + ", got " + given));
        return null;
    }

    /** This page of {@code rows}. */
    <R extends Record> List<R> of(List<R> rows, Class<R> rowType) {
        List<R> ordered = rows;
        if (sort != null) {
            var key = keys(rowType).get(sort);
            Comparator<Comparable<Object>> values = descending ? Comparator.reverseOrder() : Comparator.naturalOrder();
            // each row's key read once, then a stable sort: equal keys keep the view's order (a null key is allowed)
            var keyed = new ArrayList<Map.Entry<Comparable<Object>, R>>(rows.size());
            rows.forEach(row -> keyed.add(new SimpleImmutableEntry<>(read(key, row), row)));
            keyed.sort(Map.Entry.comparingByKey(Comparator.nullsLast(values)));
            ordered = keyed.stream().map(Map.Entry::getValue).toList();
        }
        int from = Math.min(offset, ordered.size());
        int to = limit == null ? ordered.size() : (int) Math.min(ordered.size(), (long) from + limit);
        return ordered.subList(from, to);
    }

    private static Map<String, RecordComponent> keys(Class<? extends Record> rowType) {
        var keys = new LinkedHashMap<String, RecordComponent>();
        Arrays.stream(rowType.getRecordComponents())
                .filter(c -> c.getType() == String.class || c.getType() == Double.class || c.getType() == Boolean.class
                        || c.getType() == boolean.class)
                .forEach(c -> keys.put(c.getName(), c));
        return keys;
    }

    @SuppressWarnings("unchecked")
    private static Comparable<Object> read(RecordComponent key, Record row) {
        try {
            return (Comparable<Object>) key.getAccessor().invoke(row);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + key.getName() + " of " + row.getClass().getSimpleName(), e);
        }
    }
}
