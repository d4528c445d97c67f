-- Alert receivers, silences and the notification outbox (docs/alerts.md, "Receivers"). Written by
-- the API (receivers, silences) and by the instance that evaluates an alert (outbox entries);
-- every instance's dispatcher claims due entries with FOR UPDATE SKIP LOCKED, so an entry is sent
-- by one instance only.

-- One row per receiver: its definition as JSON (name, type, options, route); options hold
-- secrets (webhook URLs, SMTP passwords) in clear, like store_item holds sources' passwords.
CREATE TABLE alert_receiver (
    name text PRIMARY KEY,
    body jsonb NOT NULL
);

-- One row per silence of pgharvest's own (Alertmanager's stay in Alertmanager).
CREATE TABLE alert_silence (
    id   text PRIMARY KEY,
    body jsonb NOT NULL
);

-- One row per notification of one alert change to one receiver. The key is what makes a
-- transition handed over twice one notification; seq keeps creation order (each receiver gets an
-- alert's changes in order). claimed_until: a dispatcher is sending it; nobody else takes it
-- before then.
CREATE TABLE alert_outbox (
    receiver        text NOT NULL,
    fingerprint     text NOT NULL,
    starts_at       text NOT NULL,
    event           text NOT NULL,
    seq             bigserial NOT NULL,
    transition      jsonb NOT NULL,
    created_at      timestamptz NOT NULL,
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    status          text NOT NULL CHECK (status IN ('pending', 'delivered', 'silenced', 'superseded', 'abandoned')),
    note            text NOT NULL DEFAULT '',
    claimed_until   timestamptz,
    PRIMARY KEY (receiver, fingerprint, starts_at, event)
);
CREATE INDEX alert_outbox_pending ON alert_outbox (receiver, fingerprint, seq) WHERE status = 'pending';
CREATE INDEX alert_outbox_created ON alert_outbox (created_at) WHERE status <> 'pending';
