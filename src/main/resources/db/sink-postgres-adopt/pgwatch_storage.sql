-- Run once, before Flyway's baseline, on a storage database pgwatch created: adds what
-- pgharvest's V1 migration holds and pgwatch's schema lacks. pgwatch's admin.storage_schema_type,
-- admin.all_distinct_dbname_metrics, admin.metrics_template, admin.get_top_level_metric_tables()
-- and its metric tables and time partitions are taken over as they are.
CREATE OR REPLACE VIEW admin.metric_time_partitions AS
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
