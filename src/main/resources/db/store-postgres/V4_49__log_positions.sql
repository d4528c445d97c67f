-- How far each source's server log has been read for log insights (store.LogPositions), so the
-- instance that collects a source next continues where the last read ended.
CREATE TABLE log_position (
    source      text PRIMARY KEY,
    format      text NOT NULL,
    file        text NOT NULL,
    file_offset bigint NOT NULL CHECK (file_offset >= 0),
    saved_at    timestamptz NOT NULL
);
