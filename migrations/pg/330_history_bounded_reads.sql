-- Reads that must not grow with the history (docs/recovery.md "Start cost", docs/operations.md
-- "Consistency checks").
--
-- 1. A start reads a write-model snapshot's head alone (`substring` of `body`, then its days beside
--    the rest of the start). PostgreSQL fetches a slice of an out-of-line value without reading the
--    rest only when the value is stored uncompressed; the document is gzip already, so pglz would
--    not shrink it anyway. New rows only: the writer replaces its snapshots within a few intervals.
ALTER TABLE write_model_snapshot ALTER COLUMN body SET STORAGE EXTERNAL;

-- 2. The GIN index on decision_event.flids without its pending list (fastupdate off). With the
--    list, recent decisions wait there unsorted (up to gin_pending_list_limit, 4 MB) and every
--    lookup by flids — the consistency check's flight sample, the snapshot check — compares each
--    pending row with each flid asked for: measured 6.4 s for 400 flids against 63k pending rows,
--    0.19 s once the list was merged. Without it each append inserts its flids into the index at
--    once (one entry per flid named; a plan names its day's flights) and no insert pays a merge.
--    Partitioned indexes take no storage parameters: each partition's index is set, and
--    msgx_month_partition sets it on the partitions it creates.
DO $$
DECLARE ix regclass;
BEGIN
  FOR ix IN SELECT i.indexrelid::regclass FROM pg_inherits h JOIN pg_index i ON i.indrelid = h.inhrelid
              JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
             WHERE h.inhparent = 'decision_event'::regclass AND a.amname = 'gin' LOOP
    EXECUTE format('ALTER INDEX %s SET (fastupdate = off)', ix);
  END LOOP;
END $$;

CREATE OR REPLACE FUNCTION msgx_month_partition(parent text, month date) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  name text := format('%s_y%sm%s', parent, to_char(month, 'YYYY'), to_char(month, 'MM'));
  lo timestamptz := (date_trunc('month', month)::timestamp AT TIME ZONE 'UTC');
  hi timestamptz := ((date_trunc('month', month) + interval '1 month')::timestamp AT TIME ZONE 'UTC');
  ix regclass;
BEGIN
  IF to_regclass(name) IS NOT NULL THEN
    RETURN name;
  END IF;
  EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', name, parent, lo, hi);
  PERFORM msgx_revoke_partition(name);
  IF parent = 'decision_event' THEN
    EXECUTE format('CREATE TRIGGER decision_event_no_truncate BEFORE TRUNCATE ON %I
                    FOR EACH STATEMENT EXECUTE FUNCTION decision_event_append_only()', name);
    FOR ix IN SELECT i.indexrelid::regclass FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                JOIN pg_am a ON a.oid = c.relam WHERE i.indrelid = to_regclass(name) AND a.amname = 'gin' LOOP
      EXECUTE format('ALTER INDEX %s SET (fastupdate = off)', ix);
    END LOOP;
  END IF;
  RETURN name;
END $$;
