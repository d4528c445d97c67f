package io.pgharvest.alert.notify;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Where receivers, silences and the notification outbox live: files in the data directory, or
 * the configuration database that several instances share (the configuration store's two
 * back-ends). Every method is durable when it returns.
 */
public interface NotifyStore {

    List<ReceiverDefinition> receivers();

    Optional<ReceiverDefinition> receiver(String name);

    /** Adds a receiver; false (nothing changed) when one of that name exists. */
    boolean createReceiver(ReceiverDefinition receiver);

    /** Replaces a receiver; false (nothing changed) when there is none of that name. */
    boolean replaceReceiver(ReceiverDefinition receiver);

    /** False when there was none of that name. */
    boolean deleteReceiver(String name);

    List<Silence> silences();

    void createSilence(Silence silence);

    /** False when there was none of that id. */
    boolean deleteSilence(String id);

    /**
     * Adds the entries whose key is not in the outbox yet (a transition handed over twice is kept
     * once), and marks pending re-sends of an alert whose resolution is among them
     * {@link OutboxEntry.Status#SUPERSEDED}.
     *
     * @return how many were added
     */
    int enqueue(Collection<OutboxEntry> entries);

    /**
     * Pending entries due at {@code now}, at most {@code limit}, each the oldest pending one of its
     * receiver and alert (so a receiver gets an alert's changes in order), claimed for
     * {@code lease}: no dispatcher (of any instance) gets them again until then, unless
     * {@link #update} records what became of them.
     */
    List<OutboxEntry> claim(Instant now, int limit, Duration lease);

    /** Records what became of a claimed entry (its key unchanged). */
    void update(OutboxEntry entry);

    /** Every entry of {@code receiver} still kept, oldest first. */
    List<OutboxEntry> entries(String receiver);

    /** Forgets finished entries created before {@code before}; pending ones are kept. */
    int prune(Instant before);
}
