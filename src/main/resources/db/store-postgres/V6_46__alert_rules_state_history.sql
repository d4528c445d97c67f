-- Alerting's rules, states and history (docs/alerts.md), beside the configuration store's tables,
-- shared by every pgharvest instance of the fleet. Until this version they were created by a
-- second Flyway run of their own (history table pgharvest_alert_schema_history): IF NOT EXISTS
-- keeps the tables and rows of such an installation, whose old history table is dropped.

-- The rule index: one row, moved by every rule write (check-and-set against the value read).
CREATE TABLE IF NOT EXISTS alert_rule_index (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    rule_index bigint NOT NULL
);
INSERT INTO alert_rule_index VALUES (true, 0) ON CONFLICT (singleton) DO NOTHING;

-- The operator's rules (built-in ones live in the jar), as the API's JSON form.
CREATE TABLE IF NOT EXISTS alert_rule (
    name         text PRIMARY KEY,
    body         jsonb NOT NULL,
    modify_index bigint NOT NULL
);

-- Every pending or firing alert, written by the instance that holds its source's lease, read
-- by the instance that takes the source over.
CREATE TABLE IF NOT EXISTS alert_state (
    source      text NOT NULL,
    fingerprint text NOT NULL,
    body        jsonb NOT NULL,
    PRIMARY KEY (source, fingerprint)
);

-- Every firing and resolution, for GET /api/v1/alerts/history.
CREATE TABLE IF NOT EXISTS alert_history (
    id          bigserial PRIMARY KEY,
    at          timestamptz NOT NULL,
    fingerprint text NOT NULL,
    body        jsonb NOT NULL
);
CREATE INDEX IF NOT EXISTS alert_history_at ON alert_history (at);

DROP TABLE IF EXISTS pgharvest_alert_schema_history;
