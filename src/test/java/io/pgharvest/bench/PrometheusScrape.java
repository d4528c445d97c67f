package io.pgharvest.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/** A parsed Prometheus text exposition (the subset Micrometer writes): samples with labels. */
record PrometheusScrape(List<Sample> samples) {

    PrometheusScrape {
        samples = List.copyOf(samples);
    }

    record Sample(String name, Map<String, String> labels, double value) {
    }

    static PrometheusScrape parse(String text) {
        var samples = new ArrayList<Sample>();
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            if (!line.isEmpty() && !line.startsWith("#")) {
                samples.add(parseLine(line));
            }
        }
        return new PrometheusScrape(samples);
    }

    /** {@code name{k="v",...} value [timestamp]}; label values may hold '}', ',' and escaped quotes. */
    static Sample parseLine(String line) {
        int i = 0;
        while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
            i++;
        }
        String name = line.substring(0, i);
        var labels = new LinkedHashMap<String, String>();
        if (i < line.length() && line.charAt(i) == '{') {
            i++;
            while (line.charAt(i) != '}') {
                int eq = line.indexOf('=', i);
                String key = line.substring(i, eq).strip();
                i = eq + 2; // past ="
                var value = new StringBuilder();
                while (line.charAt(i) != '"') {
                    if (line.charAt(i) == '\\') {
                        i++;
                    }
                    value.append(line.charAt(i++));
                }
                labels.put(key, value.toString());
                i++; // past the closing quote
                if (line.charAt(i) == ',') {
                    i++;
                }
            }
            i++; // past }
        }
        String value = line.substring(i).strip().split(" ")[0];
        return new Sample(name, labels, parseValue(value));
    }

    private static double parseValue(String value) {
        return switch (value) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(value);
        };
    }

    double sum(String name) {
        return sum(name, labels -> true);
    }

    double sum(String name, Predicate<Map<String, String>> labelFilter) {
        return samples.stream().filter(s -> s.name.equals(name) && labelFilter.test(s.labels))
                .mapToDouble(Sample::value).sum();
    }

    /** Sums of {@code name} per value of {@code label}. */
    Map<String, Double> sumBy(String name, String label) {
        var sums = new TreeMap<String, Double>();
        samples.stream().filter(s -> s.name.equals(name))
                .forEach(s -> sums.merge(s.labels.getOrDefault(label, ""), s.value, Double::sum));
        return sums;
    }

    /** Names of all samples starting with {@code prefix}. */
    List<String> namesStartingWith(String prefix) {
        return samples.stream().map(Sample::name).filter(n -> n.startsWith(prefix)).distinct().sorted().toList();
    }

    /** A histogram's buckets ({@code <name>_bucket}), summed over all other labels. */
    LagHistogram.Counts histogram(String baseName, double maxSeconds) {
        var cumulative = new TreeMap<Double, Double>(Comparator.naturalOrder());
        samples.stream().filter(s -> s.name.equals(baseName + "_bucket"))
                .forEach(s -> cumulative.merge(parseValue(s.labels.get("le")), s.value, Double::sum));
        double[] bounds = cumulative.keySet().stream().mapToDouble(Double::doubleValue).toArray();
        long[] counts = cumulative.values().stream().mapToLong(Double::longValue).toArray();
        if (bounds.length == 0) {
            return LagHistogram.Counts.ofBuckets(new double[0], new long[] {0}, maxSeconds);
        }
        return LagHistogram.Counts.ofCumulative(bounds, counts, maxSeconds);
    }
}
