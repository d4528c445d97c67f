-- The admin functions pgwatch operators call on a pgwatch storage database, with pgwatch's names,
-- arguments and results, over pgharvest's layout (time partitions in "subpartitions", metric
-- tables commented 'pgwatch-generated-metric-lvl'). Only the plain PostgreSQL layout exists here:
-- a schema_type other than 'postgres' is refused. CREATE OR REPLACE: an adopted pgwatch storage
-- database already has pgwatch's own versions, which these replace.

-- The storage layout a schema_type argument of '' stands for; anything else than 'postgres' is refused.
CREATE OR REPLACE FUNCTION admin.pgharvest_schema_type(requested text)
    RETURNS text
    LANGUAGE plpgsql STABLE AS
$fn$
DECLARE
    chosen text := requested;
BEGIN
    IF coalesce(chosen, '') = '' THEN
        SELECT st.schema_type INTO chosen FROM admin.storage_schema_type st;
    END IF;
    IF chosen IS DISTINCT FROM 'postgres' THEN
        RAISE EXCEPTION 'storage layout % is not supported: pgharvest writes plain PostgreSQL partitions', chosen
            USING ERRCODE = '22023';
    END IF;
    RETURN chosen;
END
$fn$;

-- Creates an empty metric table (as pgharvest creates one before a selected metric's first row);
-- true when created, false when it was there already.
CREATE OR REPLACE FUNCTION admin.ensure_dummy_metrics_table(metric text)
    RETURNS boolean
    LANGUAGE plpgsql AS
$fn$
BEGIN
    PERFORM admin.pgharvest_schema_type('');
    -- the same lock pgharvest's writers take before metric DDL ("pghv", hashtext of the table name)
    PERFORM pg_catalog.pg_advisory_xact_lock(1885825142, pg_catalog.hashtext(metric));
    IF pg_catalog.to_regclass(format('public.%I', metric)) IS NOT NULL THEN
        RETURN false;
    END IF;
    EXECUTE format('CREATE TABLE public.%I (LIKE admin.metrics_template INCLUDING DEFAULTS INCLUDING INDEXES)'
                   ' PARTITION BY RANGE (time)', metric);
    EXECUTE format('COMMENT ON TABLE public.%I IS %L', metric, 'pgwatch-generated-metric-lvl');
    RETURN true;
END
$fn$;

-- Time partitions whose whole range ends before now() - older_than, oldest first within a metric.
CREATE OR REPLACE FUNCTION admin.get_old_time_partitions(older_than interval, schema_type text DEFAULT '')
    RETURNS SETOF text
    LANGUAGE plpgsql STABLE AS
$fn$
BEGIN
    PERFORM admin.pgharvest_schema_type(schema_type);
    RETURN QUERY
        SELECT format('subpartitions.%I', p.partition)
          FROM admin.metric_time_partitions p
         WHERE p.range_end <= now() - older_than
         ORDER BY p.metric, p.range_start;
END
$fn$;

-- Drops what get_old_time_partitions lists; returns how many partitions were dropped.
CREATE OR REPLACE FUNCTION admin.drop_old_time_partitions(older_than interval, schema_type text DEFAULT '')
    RETURNS integer
    LANGUAGE plpgsql AS
$fn$
DECLARE
    victim text;
    dropped integer := 0;
BEGIN
    FOR victim IN SELECT * FROM admin.get_old_time_partitions(older_than, schema_type) LOOP
        EXECUTE 'DROP TABLE IF EXISTS ' || victim;
        dropped := dropped + 1;
    END LOOP;
    RETURN dropped;
END
$fn$;

-- Brings admin.all_distinct_dbname_metrics (the dashboards' drop-downs) in line with the data:
-- adds missing (dbname, metric) pairs, removes pairs without rows and those of dropped tables.
-- Returns the number of listing rows added plus removed; 0 while another session runs it.
CREATE OR REPLACE FUNCTION admin.maintain_unique_sources()
    RETURNS integer
    LANGUAGE plpgsql AS
$fn$
DECLARE
    metric_table text;
    metric_name text;
    present text[];
    known text[] := ARRAY[]::text[];
    added integer;
    removed integer;
    total integer := 0;
BEGIN
    IF NOT pg_catalog.pg_try_advisory_xact_lock(1885825142, 0) THEN
        RETURN 0;
    END IF;
    FOR metric_table, metric_name IN
        SELECT c.oid::regclass::text, c.relname::text
          FROM pg_catalog.pg_class c
         WHERE c.relnamespace = 'public'::regnamespace
           AND c.relkind IN ('r', 'p')
           AND pg_catalog.obj_description(c.oid, 'pg_class') = 'pgwatch-generated-metric-lvl'
    LOOP
        known := known || metric_name;
        -- distinct dbnames by hopping through the (dbname, time) index instead of reading every row
        EXECUTE format($q$
            WITH RECURSIVE hop(dbname) AS (
                (SELECT dbname FROM %1$s ORDER BY dbname LIMIT 1)
                UNION ALL
                SELECT (SELECT m.dbname FROM %1$s m WHERE m.dbname > hop.dbname ORDER BY m.dbname LIMIT 1)
                  FROM hop WHERE hop.dbname IS NOT NULL)
            SELECT coalesce(array_agg(dbname), ARRAY[]::text[]) FROM hop WHERE dbname IS NOT NULL
            $q$, metric_table) INTO present;
        DELETE FROM admin.all_distinct_dbname_metrics l
         WHERE l.metric = metric_name AND NOT (l.dbname = ANY (present));
        GET DIAGNOSTICS removed = ROW_COUNT;
        INSERT INTO admin.all_distinct_dbname_metrics (dbname, metric)
        SELECT d, metric_name FROM unnest(present) AS d
        ON CONFLICT DO NOTHING;
        GET DIAGNOSTICS added = ROW_COUNT;
        total := total + added + removed;
    END LOOP;
    DELETE FROM admin.all_distinct_dbname_metrics l WHERE NOT (l.metric = ANY (known));
    GET DIAGNOSTICS removed = ROW_COUNT;
    RETURN total + removed;
END
$fn$;

-- Empties every metric table and the listing; returns the number of metric tables emptied.
CREATE OR REPLACE FUNCTION admin.truncate_all_metric_tables()
    RETURNS integer
    LANGUAGE plpgsql AS
$fn$
DECLARE
    metric_table text;
    emptied integer := 0;
BEGIN
    FOR metric_table IN SELECT table_name FROM admin.get_top_level_metric_tables() LOOP
        EXECUTE 'TRUNCATE TABLE ' || metric_table;
        emptied := emptied + 1;
    END LOOP;
    TRUNCATE admin.all_distinct_dbname_metrics;
    RETURN emptied;
END
$fn$;

-- pgwatch's older storage had a function of this name; an adopted pgwatch database may hold it.
DROP ROUTINE IF EXISTS admin.drop_all_metric_tables();

-- Drops every metric table, one partition per transaction so that a large store does not run
-- out of lock slots; CALL it outside a transaction block.
CREATE OR REPLACE PROCEDURE admin.drop_all_metric_tables()
    LANGUAGE plpgsql AS
$fn$
DECLARE
    metric_table text;
    part text;
BEGIN
    FOR metric_table IN SELECT table_name FROM admin.get_top_level_metric_tables() LOOP
        FOR part IN SELECT relid::regclass::text FROM pg_catalog.pg_partition_tree(metric_table::regclass)
                     WHERE level > 0 ORDER BY level DESC LOOP
            EXECUTE 'DROP TABLE IF EXISTS ' || part;
            COMMIT;
        END LOOP;
        EXECUTE 'DROP TABLE IF EXISTS ' || metric_table;
        COMMIT;
    END LOOP;
    TRUNCATE admin.all_distinct_dbname_metrics;
    COMMIT;
END
$fn$;
