package io.pgharvest.model;

import java.time.Instant;

/**
 * Which instance of a fleet collects a source, as the configuration database's lease says
 * (several instances on one {@code pgharvest.store.url}). What the owner reports about the source
 * is as of its last lease renew, so up to two renew intervals old when read on another instance.
 *
 * @param instance the owning instance's id; null while the source is between owners
 * @param thisInstance whether the instance answering is the owner
 * @param epoch grows with every change of owner
 * @param leaseExpiresAt when the lease runs out unless renewed (database time)
 * @param lastTickAt start of the owner's last tick of the source
 * @param state the owner's reaper state at its last renew; null before its first
 * @param lastError the owner's last connection error at its last renew; null when none
 */
public record SourceOwner(
        String instance,
        boolean thisInstance,
        long epoch,
        Instant leaseExpiresAt,
        Instant lastTickAt,
        SessionState state,
        String lastError) {

    public SourceOwner {
        lastError = BoundedText.of(lastError);
    }
}
