package io.pgharvest.alert.notify.file;

import io.pgharvest.alert.notify.NotifyStore;
import io.pgharvest.alert.notify.OutboxEntry;
import io.pgharvest.alert.notify.OutboxEntry.Status;
import io.pgharvest.alert.notify.ReceiverDefinition;
import io.pgharvest.alert.notify.Silence;
import io.pgharvest.support.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.databind.json.JsonMapper;

/**
 * The notification side of the embedded (file) store: {@value #RECEIVERS} (receivers and
 * silences) and {@value #OUTBOX} in the data directory, each replaced atomically and fsynced on
 * every change (see {@link AtomicFiles}), so what a method returned survives {@code kill -9}. One
 * instance owns the data directory, so claims live in memory only: after a restart every pending
 * entry is due again.
 */
public final class FileNotifyStore implements NotifyStore {

    static final String RECEIVERS = "alert-receivers.json";
    static final String OUTBOX = "alert-outbox.json";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    record ReceiversFile(List<ReceiverDefinition> receivers, List<Silence> silences) {
        ReceiversFile {
            receivers = receivers == null ? List.of() : List.copyOf(receivers);
            silences = silences == null ? List.of() : List.copyOf(silences);
        }
    }

    record OutboxFile(List<OutboxEntry> entries) {
        OutboxFile {
            entries = entries == null ? List.of() : List.copyOf(entries);
        }
    }

    private final Path receiversFile;
    private final Path outboxFile;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, ReceiverDefinition> receivers = new LinkedHashMap<>();
    private final Map<String, Silence> silences = new LinkedHashMap<>();
    /** In creation order: the dispatcher's order. */
    private final Map<OutboxEntry.Key, OutboxEntry> outbox = new LinkedHashMap<>();
    private final Map<OutboxEntry.Key, Instant> claimedUntil = new HashMap<>();

    public FileNotifyStore(Path dataDir) {
        this.receiversFile = dataDir.resolve(RECEIVERS);
        this.outboxFile = dataDir.resolve(OUTBOX);
        try {
            if (Files.exists(receiversFile)) {
                ReceiversFile file = JSON.readValue(receiversFile.toFile(), ReceiversFile.class);
                file.receivers().forEach(r -> receivers.put(r.name(), r));
                file.silences().forEach(s -> silences.put(s.id(), s));
            }
            if (Files.exists(outboxFile)) {
                JSON.readValue(outboxFile.toFile(), OutboxFile.class).entries().forEach(e -> outbox.put(e.key(), e));
            }
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot read the alert receivers and outbox in " + dataDir + ": "
                    + e.getMessage(), e);
        }
    }

    @Override
    public List<ReceiverDefinition> receivers() {
        return locked(() -> List.copyOf(receivers.values()));
    }

    @Override
    public Optional<ReceiverDefinition> receiver(String name) {
        return locked(() -> Optional.ofNullable(receivers.get(name)));
    }

    @Override
    public boolean createReceiver(ReceiverDefinition receiver) {
        return locked(() -> {
            if (receivers.containsKey(receiver.name())) {
                return false;
            }
            receivers.put(receiver.name(), receiver);
            return saveReceivers(() -> receivers.remove(receiver.name()));
        });
    }

    @Override
    public boolean replaceReceiver(ReceiverDefinition receiver) {
        return locked(() -> {
            ReceiverDefinition old = receivers.get(receiver.name());
            if (old == null) {
                return false;
            }
            receivers.put(receiver.name(), receiver);
            return saveReceivers(() -> receivers.put(old.name(), old));
        });
    }

    @Override
    public boolean deleteReceiver(String name) {
        return locked(() -> {
            ReceiverDefinition old = receivers.remove(name);
            return old != null && saveReceivers(() -> receivers.put(name, old));
        });
    }

    @Override
    public List<Silence> silences() {
        return locked(() -> List.copyOf(silences.values()));
    }

    @Override
    public void createSilence(Silence silence) {
        locked(() -> {
            silences.put(silence.id(), silence);
            return saveReceivers(() -> silences.remove(silence.id()));
        });
    }

    @Override
    public boolean deleteSilence(String id) {
        return locked(() -> {
            Silence old = silences.remove(id);
            return old != null && saveReceivers(() -> silences.put(id, old));
        });
    }

    @Override
    public int enqueue(Collection<OutboxEntry> entries) {
        return locked(() -> {
            var before = new LinkedHashMap<>(outbox);
            int added = 0;
            Set<List<Object>> resolved = new HashSet<>();
            for (OutboxEntry entry : entries) {
                if (outbox.putIfAbsent(entry.key(), entry) == null) {
                    added++;
                    if (entry.transition().state() == io.pgharvest.alert.AlertTransition.State.RESOLVED) {
                        resolved.add(alertOf(entry.key()));
                    }
                }
            }
            for (OutboxEntry entry : List.copyOf(outbox.values())) {
                if (entry.status() == Status.PENDING && entry.key().isResend() && resolved.contains(alertOf(entry.key()))) {
                    outbox.put(entry.key(), entry.finished(Status.SUPERSEDED, "the alert resolved"));
                }
            }
            if (added > 0) {
                saveOutbox(before);
            }
            return added;
        });
    }

    private static List<Object> alertOf(OutboxEntry.Key key) {
        return List.of(key.receiver(), key.fingerprint(), key.startsAt());
    }

    @Override
    public List<OutboxEntry> claim(Instant now, int limit, Duration lease) {
        return locked(() -> {
            var claimed = new ArrayList<OutboxEntry>();
            var seen = new HashSet<List<Object>>();
            for (OutboxEntry entry : outbox.values()) {
                if (entry.status() != Status.PENDING) {
                    continue;
                }
                // Only the oldest pending entry of each receiver and alert: changes arrive in order.
                if (!seen.add(List.of(entry.key().receiver(), entry.key().fingerprint()))) {
                    continue;
                }
                Instant until = claimedUntil.get(entry.key());
                if (entry.nextAttemptAt().isAfter(now) || (until != null && until.isAfter(now))) {
                    continue;
                }
                claimedUntil.put(entry.key(), now.plus(lease));
                claimed.add(entry);
                if (claimed.size() == limit) {
                    break;
                }
            }
            return claimed;
        });
    }

    @Override
    public void update(OutboxEntry entry) {
        locked(() -> {
            var before = new LinkedHashMap<>(outbox);
            outbox.replace(entry.key(), entry);
            saveOutbox(before);
            claimedUntil.remove(entry.key());
            return null;
        });
    }

    @Override
    public List<OutboxEntry> entries(String receiver) {
        return locked(() -> outbox.values().stream().filter(e -> e.key().receiver().equals(receiver))
                .sorted(Comparator.comparing(OutboxEntry::createdAt)).toList());
    }

    @Override
    public int prune(Instant before) {
        return locked(() -> {
            var old = new LinkedHashMap<>(outbox);
            int removed = 0;
            for (OutboxEntry entry : List.copyOf(outbox.values())) {
                if (entry.status() != Status.PENDING && entry.createdAt().isBefore(before)) {
                    outbox.remove(entry.key());
                    removed++;
                }
            }
            if (removed > 0) {
                saveOutbox(old);
            }
            return removed;
        });
    }

    /** Writes receivers and silences; on failure runs {@code undo} and throws. */
    private boolean saveReceivers(Runnable undo) {
        try {
            AtomicFiles.write(receiversFile, JSON.writeValueAsBytes(new ReceiversFile(List.copyOf(receivers.values()),
                    List.copyOf(silences.values()))));
            return true;
        } catch (IOException | RuntimeException e) {
            undo.run();
            throw new UncheckedIOException("cannot write " + receiversFile + "; nothing was changed", asIo(e));
        }
    }

    private void saveOutbox(Map<OutboxEntry.Key, OutboxEntry> before) {
        try {
            AtomicFiles.write(outboxFile, JSON.writeValueAsBytes(new OutboxFile(List.copyOf(outbox.values()))));
        } catch (IOException | RuntimeException e) {
            outbox.clear();
            outbox.putAll(before);
            throw new UncheckedIOException("cannot write " + outboxFile + "; nothing was changed", asIo(e));
        }
    }

    private static IOException asIo(Exception e) {
        return e instanceof IOException io ? io : new IOException(e.getMessage(), e);
    }

    private <T> T locked(java.util.function.Supplier<T> action) {
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }
}
