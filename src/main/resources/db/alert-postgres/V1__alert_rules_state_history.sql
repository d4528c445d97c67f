-- Alerting's tables in the configuration database (pgharvest.store.url), beside the
-- configuration store's, shared by every pgharvest instance of the fleet.

-- The rule index: one row, moved by every rule write (check-and-set against the value read).
CREATE TABLE alert_rule_index (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    rule_index bigint NOT NULL
);
INSERT INTO alert_rule_index VALUES (true, 0);

-- The operator's rules (built-in ones live in the jar), as the API's JSON form.
CREATE TABLE alert_rule (
    name         text PRIMARY KEY,
    body         jsonb NOT NULL,
    modify_index bigint NOT NULL
);

-- Every pending or firing alert, written by the instance that holds its source's lease, read
-- by the instance that takes the source over.
CREATE TABLE alert_state (
    source      text NOT NULL,
    fingerprint text NOT NULL,
    body        jsonb NOT NULL,
    PRIMARY KEY (source, fingerprint)
);

-- Every firing and resolution, for GET /api/v1/alerts/history.
CREATE TABLE alert_history (
    id          bigserial PRIMARY KEY,
    at          timestamptz NOT NULL,
    fingerprint text NOT NULL,
    body        jsonb NOT NULL
);
CREATE INDEX alert_history_at ON alert_history (at);
