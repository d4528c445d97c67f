package io.pgharvest.alert.store;

import io.pgharvest.alert.AlertTransition;
import io.pgharvest.support.AtomicFiles;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Alerting's files in the data directory, for a single instance: {@code alert-rules.json} (the
 * operator's rules), {@code alert-state/} (every alert's state, a file per source: {@link StateFiles}),
 * replaced atomically, and {@code alert-history.jsonl}, one transition a line, rolled over to
 * {@code alert-history.1.jsonl} past {@value #HISTORY_ROLL_BYTES} bytes.
 */
public final class FileAlertStorage implements AlertStorage {

    static final long HISTORY_ROLL_BYTES = 8L << 20;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Path rulesFile;
    private final StateFiles stateFiles;
    private final Path historyFile;
    private final Path rolledHistory;
    private final Map<String, Map<String, AlertState>> states;
    private StoredRule.Table rules;

    /** File form of the rules: the rule index and each rule with its modify index. */
    record RulesFile(long index, Map<String, StoredRule> rules) {
    }

    public FileAlertStorage(Path dataDirectory) {
        this.rulesFile = dataDirectory.resolve("alert-rules.json");
        this.stateFiles = new StateFiles(dataDirectory);
        this.historyFile = dataDirectory.resolve("alert-history.jsonl");
        this.rolledHistory = dataDirectory.resolve("alert-history.1.jsonl");
        try {
            AtomicFiles.createDirectories(dataDirectory);
            rules = Files.exists(rulesFile) ? toTable(JSON.readValue(rulesFile.toFile(), RulesFile.class))
                    : new StoredRule.Table(0, Map.of());
            states = stateFiles.readAll();
        } catch (IOException | JacksonException e) {
            throw new IllegalStateException("cannot read alerting's files in " + dataDirectory + ": " + e.getMessage(), e);
        }
    }

    private static StoredRule.Table toTable(RulesFile file) {
        return new StoredRule.Table(file.index(), file.rules() == null ? Map.of() : file.rules());
    }

    @Override
    public synchronized StoredRule.Table readRules() {
        return rules;
    }

    @Override
    public synchronized long rulesIndex() {
        return rules.index();
    }

    @Override
    public synchronized boolean writeRule(long expected, long next, String name, StoredRule rule) {
        if (rules.index() != expected) {
            return false;
        }
        var changed = new TreeMap<>(rules.rules());
        if (rule == null) {
            changed.remove(name);
        } else {
            changed.put(name, rule);
        }
        write(rulesFile, new RulesFile(next, changed));
        rules = new StoredRule.Table(next, changed);
        return true;
    }

    @Override
    public synchronized Map<String, AlertState> readStates(String source) {
        return Map.copyOf(states.getOrDefault(source, Map.of()));
    }

    @Override
    public synchronized void writeStates(String source, Collection<AlertState> sourceStates) {
        stateFiles.write(source, sourceStates);
        if (sourceStates.isEmpty()) {
            states.remove(source);
        } else {
            var byFingerprint = new LinkedHashMap<String, AlertState>();
            sourceStates.forEach(state -> byFingerprint.put(state.fingerprint(), state));
            states.put(source, byFingerprint);
        }
    }

    @Override
    public synchronized void appendHistory(AlertTransition transition) {
        try {
            if (Files.exists(historyFile) && Files.size(historyFile) > HISTORY_ROLL_BYTES) {
                Files.move(historyFile, rolledHistory, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            }
            byte[] line = (JSON.writeValueAsString(transition) + "\n").getBytes(StandardCharsets.UTF_8);
            Files.write(historyFile, line, StandardOpenOption.CREATE, StandardOpenOption.APPEND,
                    StandardOpenOption.WRITE, StandardOpenOption.SYNC);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to " + historyFile + ": " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized List<AlertTransition> readHistory(Instant from, Instant to, int limit) {
        var found = new ArrayList<AlertTransition>();
        for (Path file : List.of(rolledHistory, historyFile)) {
            if (!Files.exists(file)) {
                continue;
            }
            try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                for (String line = in.readLine(); line != null && found.size() < limit; line = in.readLine()) {
                    AlertTransition t = readLine(line);
                    Instant at = t == null ? null : HistoryTimes.of(t);
                    if (at != null && !at.isBefore(from) && at.isBefore(to)) {
                        found.add(t);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
            }
        }
        return found;
    }

    /** A torn last line (a crash while appending) is skipped. */
    private static AlertTransition readLine(String line) {
        try {
            return line.isBlank() ? null : JSON.readValue(line, AlertTransition.class);
        } catch (JacksonException e) {
            return null;
        }
    }

    private static void write(Path file, Object value) {
        try {
            AtomicFiles.write(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(value));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + "; nothing was changed: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        // Every write is complete when it returns; nothing is held open.
    }
}
