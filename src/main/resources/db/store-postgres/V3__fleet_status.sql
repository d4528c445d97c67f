-- What each owner last reported of its sources, so that any instance can answer their status.
ALTER TABLE source_lease
    ADD COLUMN state      text,
    ADD COLUMN last_error text;
