-- `msgx restore` loads a month beside the live tables and attaches it only at the end
-- (docs/operations.md "Archive a month", "What each step costs").
--
-- Creating a partition (CREATE TABLE … PARTITION OF, msgx_month_partition) takes an ACCESS
-- EXCLUSIVE lock on the parent until the transaction ends: a restore that created the month's
-- partitions first and then loaded them held decision_event, inbox_message and proc_state_hst
-- against every reader and writer for the whole load (47 s for a month of 683,217 decisions on the
-- 2-core bench machine: the pump, the projectors and the read API all waited). Instead the month is
-- loaded into a plain table of the partition's name, with the parent's columns, constraints,
-- indexes, storage and compression (LIKE … INCLUDING ALL: ATTACH then finds its indexes and builds
-- none), and attached as the transaction's last step. ATTACH PARTITION takes SHARE UPDATE EXCLUSIVE
-- on the parent (appends go on) and ACCESS EXCLUSIVE on the DEFAULT partition, for the checks of
-- the bound only: a CHECK constraint of the bound, added before and dropped after, spares the
-- scan of the month's rows. msgx_month_partition makes every month this way from now on (the
-- writer's months ahead, the split of a DEFAULT partition): CREATE TABLE … PARTITION OF waits
-- behind any open reader of the parent (a backup's pg_dump) while every append queues behind it.

-- A plain table to become the partition of `parent` for the UTC month that starts at `month`, with
-- what msgx_month_partition gives a partition (no grant of its own; on decision_event its TRUNCATE
-- trigger and GIN indexes without a pending list). The parent's row triggers come with the ATTACH.
CREATE FUNCTION msgx_month_table(parent text, month date) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  name text := format('%s_y%sm%s', parent, to_char(month, 'YYYY'), to_char(month, 'MM'));
  ix regclass;
BEGIN
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING ALL)', name, parent);
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

-- Attach the table msgx_month_table made as the partition of `parent` for `month` (on the parent's
-- partition key).
CREATE FUNCTION msgx_attach_month(parent text, month date) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  name text := format('%s_y%sm%s', parent, to_char(month, 'YYYY'), to_char(month, 'MM'));
  lo timestamptz := (date_trunc('month', month)::timestamp AT TIME ZONE 'UTC');
  hi timestamptz := ((date_trunc('month', month) + interval '1 month')::timestamp AT TIME ZONE 'UTC');
  key text;
BEGIN
  SELECT a.attname INTO key FROM pg_partitioned_table p
    JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
   WHERE p.partrelid = parent::regclass;
  EXECUTE format('ALTER TABLE %I ADD CONSTRAINT msgx_month_bound CHECK (%I IS NOT NULL AND %I >= %L AND %I < %L)',
    name, key, key, lo, key, hi);
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, name, lo, hi);
  EXECUTE format('ALTER TABLE %I DROP CONSTRAINT msgx_month_bound', name);
END $$;

-- One way to make a month (the two above), wherever it is made: the partition of `parent` for the
-- UTC month that starts at `month`, if missing. Replaces 330's CREATE TABLE … PARTITION OF.
CREATE OR REPLACE FUNCTION msgx_month_partition(parent text, month date) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  name text := format('%s_y%sm%s', parent, to_char(month, 'YYYY'), to_char(month, 'MM'));
BEGIN
  IF to_regclass(name) IS NULL THEN
    PERFORM msgx_month_table(parent, month);
    PERFORM msgx_attach_month(parent, month);
  END IF;
  RETURN name;
END $$;
