-- pgharvest's storage database, laid out the way pgwatch's PostgreSQL sink lays out its own so
-- that pgwatch's Grafana dashboards can read it:
--   public.<metric>              one table per metric (storage name), range-partitioned by time,
--                                columns time, dbname, data jsonb, tag_data jsonb
--   subpartitions.<metric>_<t>   its time partitions, created by pgharvest as data arrives and
--                                ahead of time, dropped by retention
--   admin.*                      bookkeeping: the dashboards' source/metric listing, the template
--                                metric tables are created from, and a catalog view of partitions
-- Flyway creates the schema "admin" and keeps its history in admin.pgharvest_schema_history.
-- Table comments mark what pgharvest owns, with the values pgwatch's own tools look for.

CREATE SCHEMA IF NOT EXISTS subpartitions;

-- pgwatch components read which layout a storage database uses; pgharvest only writes plain
-- PostgreSQL partitions.
CREATE TABLE admin.storage_schema_type (
    schema_type    text        NOT NULL DEFAULT 'postgres' CHECK (schema_type = 'postgres'),
    initialized_on timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX storage_schema_type_one_row ON admin.storage_schema_type ((true));
INSERT INTO admin.storage_schema_type DEFAULT VALUES;
COMMENT ON TABLE admin.storage_schema_type IS 'storage layout of this database, read by pgwatch components';

-- The dashboards' source and metric drop-downs read this table instead of scanning metric tables.
-- pgharvest adds a row on the first write of each (source, metric) and removes rows whose data
-- retention has dropped.
CREATE TABLE admin.all_distinct_dbname_metrics (
    dbname     text        NOT NULL,
    metric     text        NOT NULL,
    created_on timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (dbname, metric)
);

-- Every metric table is created LIKE this one (columns, defaults, indexes); it holds no rows.
CREATE TABLE admin.metrics_template (
    time     timestamptz NOT NULL DEFAULT now(),
    dbname   text        NOT NULL,
    data     jsonb       NOT NULL,
    tag_data jsonb,
    CONSTRAINT metrics_template_holds_no_rows CHECK (false)
);
CREATE INDEX metrics_template_dbname_time ON admin.metrics_template (dbname, time);

-- The time partitions of pgharvest's metric tables with their bounds, read from the catalog.
CREATE VIEW admin.metric_time_partitions AS
SELECT parent.relname::text AS metric,
       part.relname::text AS partition,
       (regexp_match(pg_catalog.pg_get_expr(part.relpartbound, part.oid), $re$FROM \('([^']+)'\)$re$))[1]::timestamptz
           AS range_start,
       (regexp_match(pg_catalog.pg_get_expr(part.relpartbound, part.oid), $re$TO \('([^']+)'\)$re$))[1]::timestamptz
           AS range_end
  FROM pg_catalog.pg_inherits i
  JOIN pg_catalog.pg_class part ON part.oid = i.inhrelid
  JOIN pg_catalog.pg_class parent ON parent.oid = i.inhparent
 WHERE parent.relnamespace = 'public'::regnamespace
   AND part.relnamespace = 'subpartitions'::regnamespace
   AND parent.relkind = 'p'
   AND pg_catalog.obj_description(parent.oid, 'pg_class') = 'pgwatch-generated-metric-lvl';

-- Top-level metric tables, under the name pgwatch's maintenance functions use.
CREATE FUNCTION admin.get_top_level_metric_tables(OUT table_name text)
    RETURNS SETOF text
    LANGUAGE sql STABLE AS
$fn$
    SELECT c.oid::regclass::text
      FROM pg_catalog.pg_class c
     WHERE c.relnamespace = 'public'::regnamespace
       AND c.relkind IN ('r', 'p')
       AND pg_catalog.obj_description(c.oid, 'pg_class') = 'pgwatch-generated-metric-lvl'
     ORDER BY 1
$fn$;
