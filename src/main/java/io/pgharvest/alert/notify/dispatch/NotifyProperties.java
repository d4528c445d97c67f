package io.pgharvest.alert.notify.dispatch;

import io.pgharvest.alert.notify.Receiver;

import io.pgharvest.support.Backoff;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How notifications leave the outbox, bound from {@code pgharvest.alert.notifications.*}
 * (docs/alerts.md, "Receiver outage").
 *
 * @param retryFirst the wait after a receiver's first failed send
 * @param retryMax the longest wait between two attempts (the back-off doubles up to it)
 * @param giveUpAfter how long a notification is tried before it is abandoned
 * @param pollInterval how often the outbox is looked at when nothing woke it (entries other
 *     instances added, back-offs that ended)
 * @param claimLease how long a dispatcher has to send what it claimed before another may take it
 * @param resendInterval how often a firing alert is re-sent to Alertmanager (at most)
 * @param retention how long finished notifications are kept (what makes a transition handed over
 *     twice, e.g. after a crash, one notification)
 * @param receiverRefresh how often receivers other instances changed are picked up
 */
@ConfigurationProperties("pgharvest.alert.notifications")
@Validated
public record NotifyProperties(
        @DefaultValue("2s") @NotNull @DurationMin(millis = 10) Duration retryFirst,
        @DefaultValue("5m") @NotNull @DurationMin(millis = 10) Duration retryMax,
        @DefaultValue("24h") @NotNull @DurationMin(seconds = 1) Duration giveUpAfter,
        @DefaultValue("1s") @NotNull @DurationMin(millis = 10) Duration pollInterval,
        @DefaultValue("1m") @NotNull @DurationMin(seconds = 1) Duration claimLease,
        @DefaultValue("1m") @NotNull @DurationMin(millis = 100) Duration resendInterval,
        @DefaultValue("7d") @NotNull @DurationMin(minutes = 1) Duration retention,
        @DefaultValue("5s") @NotNull @DurationMin(millis = 10) Duration receiverRefresh) {

    public NotifyProperties {
        if (retryFirst != null && retryMax != null && retryMax.compareTo(retryFirst) < 0) {
            throw new IllegalArgumentException("pgharvest.alert.notifications.retry-max must not be below retry-first");
        }
    }

    OutboxDispatcher.Tuning tuning() {
        return new OutboxDispatcher.Tuning(new Backoff(retryFirst, retryMax), giveUpAfter, pollInterval, claimLease,
                retention);
    }
}
