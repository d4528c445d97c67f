package io.pgharvest.alert.notify;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The silences an alert can be under: pgharvest's own (read from the store on every question, so
 * another instance's count at once) and those of every Alertmanager receiver as last fetched (the
 * silences list fetches them; nothing here calls Alertmanager, so answering which alerts are
 * silenced never waits for one). The {@link #onChange} listeners hear when a silence is created or
 * deleted here or a fetch brought a different set, so a blocking query on the alerts answers then.
 */
public final class KnownSilences {

    /** A silence that holds an alert, with the receiver whose Alertmanager has it (null for pgharvest's). */
    public record Holding(Silence silence, String receiver) {
    }

    private final Supplier<List<Silence>> own;
    private final List<Runnable> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Alertmanager's silences by receiver name, as last fetched; replaced whole, never mutated. */
    private volatile Map<String, List<Silence>> external = Map.of();

    public KnownSilences(Supplier<List<Silence>> own) {
        this.own = own;
    }

    /** Records what receiver {@code receiver}'s Alertmanagers answered now. */
    public void fetched(String receiver, List<Silence> silences) {
        List<Silence> copy = List.copyOf(silences);
        synchronized (this) {
            if (Objects.equals(external.get(receiver), copy)) {
                return;
            }
            var next = new HashMap<>(external);
            next.put(receiver, copy);
            external = Map.copyOf(next);
        }
        changed();
    }

    /** Forgets the silences of receivers no longer configured. */
    public synchronized void keepOnly(java.util.Set<String> receivers) {
        if (!receivers.containsAll(external.keySet())) {
            var next = new HashMap<>(external);
            next.keySet().retainAll(receivers);
            external = Map.copyOf(next);
            changed();
        }
    }

    /** One of pgharvest's silences was created or deleted. */
    public void changed() {
        listeners.forEach(Runnable::run);
    }

    /** {@code listener} runs, on the changing thread, after every change. */
    public void onChange(Runnable listener) {
        listeners.add(listener);
    }

    /** The questions of one answer: pgharvest's silences are read once for every alert asked about. */
    public Snapshot snapshot() {
        return new Snapshot(own.get(), external);
    }

    /** The silences known at one moment. */
    public static final class Snapshot {
        private final List<Holding> all = new ArrayList<>();

        private Snapshot(List<Silence> own, Map<String, List<Silence>> external) {
            own.forEach(s -> all.add(new Holding(s, null)));
            external.forEach((receiver, list) -> list.forEach(s -> all.add(new Holding(s, receiver))));
        }

        /** The silences active at {@code now} whose matchers all hold for {@code labels}. */
        public List<Holding> silencing(Map<String, String> labels, Instant now) {
            return all.stream().filter(h -> h.silence().silences(labels, now)).toList();
        }
    }
}
