package io.pgharvest.pgwatch.format;

import java.util.Collection;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.exc.MismatchedInputException;

/**
 * Says what is wrong with a YAML file in the file's own terms (a map, a list, text, a number)
 * instead of Jackson's, which names Java classes and parser tokens ("Cannot deserialize value of
 * type `java.util.LinkedHashMap<...>` from Array value (token `JsonToken.START_ARRAY`)") that mean
 * nothing to someone importing pgwatch's files.
 */
final class YamlWording {

    private static final Pattern DUPLICATE_KEY = Pattern.compile("Duplicate Object property \"([^\"]*)\"");
    /** Marks of a message written for Java developers: quoted types, package names, token names. */
    private static final Pattern JAVA_TALK = Pattern.compile("`|java\\.|io\\.pgharvest|JsonToken|START_|END_|VALUE_|"
            + "deserializ|class ", Pattern.CASE_INSENSITIVE);

    private YamlWording() {
    }

    /** What the file holds where a {@code token} starts. */
    static String of(JsonToken token) {
        if (token == null) {
            return "nothing";
        }
        return switch (token) {
            case START_OBJECT -> "a map (key: value lines)";
            case START_ARRAY -> "a list (- item lines or [a, b])";
            case VALUE_STRING -> "text";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "true or false";
            case VALUE_NULL -> "an empty value";
            default -> "something else";
        };
    }

    /** What the file should hold where a value of {@code type} is read. */
    static String expected(Class<?> type) {
        if (type == null) {
            return "another kind of value";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            return "a whole number";
        }
        if (Number.class.isAssignableFrom(type) || type == double.class) {
            return "a number";
        }
        if (type == String.class || type.isEnum()) {
            return "text";
        }
        if (Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "a list";
        }
        if (Map.class.isAssignableFrom(type) || type.isRecord()) {
            return "a map (key: value lines)";
        }
        return "another kind of value";
    }

    /** The problem of {@code e} without Java names; the caller adds the key path and the line. */
    static String problem(JacksonException e) {
        if (e instanceof MismatchedInputException mismatch) {
            return "expected " + expected(mismatch.getTargetType()) + mismatchFound(mismatch);
        }
        String message = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        Matcher duplicate = DUPLICATE_KEY.matcher(message);
        if (duplicate.find()) {
            return "the key '" + duplicate.group(1) + "' is given twice";
        }
        return message.isBlank() || JAVA_TALK.matcher(message).find() ? "cannot be read here" : message;
    }

    private static String mismatchFound(MismatchedInputException e) {
        String message = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        if (message.contains("from Array value")) {
            return ", found a list";
        }
        if (message.contains("from Object value")) {
            return ", found a map";
        }
        if (message.contains("from String value") || message.contains("from String \"")) {
            return ", found text";
        }
        if (message.contains("from Integer value") || message.contains("from Floating-point value")) {
            return ", found a number";
        }
        return "";
    }
}
