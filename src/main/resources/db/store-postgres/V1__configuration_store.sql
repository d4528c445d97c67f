-- pgharvest's configuration store, shared by every pgharvest instance pointed at this database
-- (pgharvest.store.url). Written only by pgharvest, one transaction per API write.

-- The store-wide index and each table's last-change index; exactly one row. Writers lock it
-- (SELECT ... FOR UPDATE) for the whole write, which serializes writes across instances.
CREATE TABLE store_index (
    singleton     boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    store_index   bigint NOT NULL,
    sources_index bigint NOT NULL,
    metrics_index bigint NOT NULL,
    presets_index bigint NOT NULL
);
INSERT INTO store_index VALUES (true, 0, 0, 0, 0);

-- One row per item readers see: the operator's items carry their body (pgwatch's item format,
-- as JSON); built-in metrics and presets that are not overridden carry only their stamp, so that
-- their modify index survives restarts and is the same on every instance.
CREATE TABLE store_item (
    item_table   text NOT NULL CHECK (item_table IN ('sources', 'metrics', 'presets')),
    name         text NOT NULL,
    body         jsonb,
    modify_index bigint NOT NULL,
    fingerprint  text NOT NULL,
    PRIMARY KEY (item_table, name)
);
