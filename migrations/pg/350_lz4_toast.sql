-- The big values of the pipeline stored with lz4 instead of pglz where PostgreSQL was built with it
-- (docs/projections.md "Big decisions"): a plan's raw XML (inbox_message.raw_xml), its decision's
-- payload (decision_event.payload) and its outbox rows (msg_event.payload). Measured on the 2-core
-- machine, 4 rounds each: a 16 MiB plan's XML 0.38 → 0.11 s to insert, a 45 MB payload 2.3 → 1.9 s;
-- the stored sizes are about the same. New values only: what is stored stays as it is.
-- A partitioned parent's setting is what its new partitions take (msgx_month_partition, restore);
-- the existing partitions are set one by one. Without lz4 (`compression method lz4 not supported`,
-- e.g. an embedded build without it) everything stays pglz.
DO $$
DECLARE
  target record;
BEGIN
  FOR target IN
    SELECT c.oid::regclass AS rel, t.col
      FROM (VALUES ('inbox_message', 'raw_xml'), ('decision_event', 'payload'), ('msg_event', 'payload')) AS t(tab, col)
      JOIN pg_class c ON c.oid = t.tab::regclass OR c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = t.tab::regclass)
  LOOP
    EXECUTE format('ALTER TABLE ONLY %s ALTER COLUMN %I SET COMPRESSION lz4', target.rel, target.col);
  END LOOP;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available in this PostgreSQL build: the pipeline''s big values stay pglz';
END $$;
