-- A month table's bound is checked before any lock on its parent is taken (docs/operations.md
-- "Archive a month", "What each step costs").
--
-- msgx_attach_month (360) added the CHECK of the month's bound, which scans the month's rows, and
-- then attached: inside the split of a DEFAULT partition that scan ran with the parent detached
-- from its DEFAULT partition, i.e. under ACCESS EXCLUSIVE on the parent (most of the split's
-- 300-440 ms of locked table for 1.18 M decisions), and inside a restore it ran after the first
-- table's attach, holding that table's DEFAULT partition. msgx_bound_month adds the CHECK on its
-- own, before the callers lock anything; msgx_attach_month keeps a CHECK already there, so the
-- attach itself scans nothing (it finds the CHECK implies the partition's bound).

-- Add the CHECK of `month`'s bound to the month table msgx_month_table made for `parent` (on the
-- parent's partition key), unless it has it already. Scans the table; locks only it.
CREATE FUNCTION msgx_bound_month(parent text, month date) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  name text := format('%s_y%sm%s', parent, to_char(month, 'YYYY'), to_char(month, 'MM'));
  lo timestamptz := (date_trunc('month', month)::timestamp AT TIME ZONE 'UTC');
  hi timestamptz := ((date_trunc('month', month) + interval '1 month')::timestamp AT TIME ZONE 'UTC');
  key text;
BEGIN
  IF EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = name::regclass AND conname = 'msgx_month_bound') THEN
    RETURN;
  END IF;
  SELECT a.attname INTO key FROM pg_partitioned_table p
    JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
   WHERE p.partrelid = parent::regclass;
  EXECUTE format('ALTER TABLE %I ADD CONSTRAINT msgx_month_bound CHECK (%I IS NOT NULL AND %I >= %L AND %I < %L)',
    name, key, key, lo, key, hi);
END $$;

-- Attach the month table as the partition of `parent` for `month`; its bound's CHECK is added here
-- unless msgx_bound_month added it before, and dropped once attached.
CREATE OR REPLACE FUNCTION msgx_attach_month(parent text, month date) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  name text := format('%s_y%sm%s', parent, to_char(month, 'YYYY'), to_char(month, 'MM'));
  lo timestamptz := (date_trunc('month', month)::timestamp AT TIME ZONE 'UTC');
  hi timestamptz := ((date_trunc('month', month) + interval '1 month')::timestamp AT TIME ZONE 'UTC');
BEGIN
  PERFORM msgx_bound_month(parent, month);
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, name, lo, hi);
  EXECUTE format('ALTER TABLE %I DROP CONSTRAINT msgx_month_bound', name);
END $$;
