-- History partitioned by month (docs/operations.md "Archive a month"): decision_event,
-- inbox_message and proc_state_hst become range-partitioned on a timestamp, one partition per UTC
-- month, so that `msgx archive` can write a month to a file and drop it, and `msgx restore` can
-- attach it again.
--
-- Partition keys. PostgreSQL requires every unique constraint of a partitioned table to include
-- the partition key, and a month is a time range, so the key is the row's own timestamp:
--   decision_event  recorded_at  (PK position → (position, recorded_at))
--   inbox_message   ingested_at  (PK msg_id   → (msg_id, ingested_at))
--   proc_state_hst  archived_at  (PK msg_id   → (msg_id, archived_at); identity index not unique)
-- Position ranges would keep the PK as it is, but a month's position range is unknown until the
-- month ends, and a partition's bounds cannot change: it would need a split of the open partition
-- at every month. The time key needs none. Position stays unique because it is handed out under
-- pipeline_lock (src/log/appendDecisions.ts), a message id because ingest copies a row only when
-- no row with its id exists (src/write/ingest/copyInbox.ts), an archived identity because the pump
-- checks proc_state_hst before binding one (src/write/pump/findHeads.ts). Every read by position
-- or id still uses an index: each partition's primary key starts with position (msg_id).
--
-- No insert can fail for a missing partition: each table has a DEFAULT partition, and months
-- are created ahead (this migration: the months of the existing rows and twelve after now;
-- `msgx archive` and the writer's hourly jobs keep twelve ahead: src/log/historyMonths.ts).
--
-- The log stays append-only on every partition: the row trigger on the parent is cloned onto each
-- partition (PostgreSQL ≥ 13), and TRUNCATE, which fires only the triggers of the table named,
-- gets a statement trigger on the parent and on each partition (msgx_month_partition).
--
-- A partition carries no grant of its own: a read through the parent checks only the parent's
-- privileges, and the reader role (050's default privileges would grant it SELECT on every new
-- table) keeps exactly the tables docs/security.md lists (msgx_revoke_partition).

-- Take back what default privileges granted on partition `name` (the reader reads the parent).
CREATE FUNCTION msgx_revoke_partition(name text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'msgx_reader') THEN
    EXECUTE format('REVOKE ALL ON TABLE %I FROM msgx_reader', name);
  END IF;
END $$;

-- Create (if missing) the partition of `parent` for the UTC month that starts at `month`.
CREATE FUNCTION msgx_month_partition(parent text, month date) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  name text := format('%s_y%sm%s', parent, to_char(month, 'YYYY'), to_char(month, 'MM'));
  lo timestamptz := (date_trunc('month', month)::timestamp AT TIME ZONE 'UTC');
  hi timestamptz := ((date_trunc('month', month) + interval '1 month')::timestamp AT TIME ZONE 'UTC');
BEGIN
  IF to_regclass(name) IS NOT NULL THEN
    RETURN name;
  END IF;
  EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', name, parent, lo, hi);
  PERFORM msgx_revoke_partition(name);
  IF parent = 'decision_event' THEN
    EXECUTE format('CREATE TRIGGER decision_event_no_truncate BEFORE TRUNCATE ON %I
                    FOR EACH STATEMENT EXECUTE FUNCTION decision_event_append_only()', name);
  END IF;
  RETURN name;
END $$;

-- Replace table `t` by a partitioned copy on `key`: same columns, defaults and grants, the
-- existing rows moved in position/id order, months created from the oldest row to twelve ahead.
CREATE FUNCTION msgx_partition_by_month(t text, key text, ord text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  oldest date;
  m date;
  g record;
BEGIN
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS) PARTITION BY RANGE (%I)', t || '_new', t, key);
  EXECUTE format('SELECT date_trunc(''month'', min(%I) AT TIME ZONE ''UTC'')::date FROM %I', key, t) INTO oldest;
  m := least(coalesce(oldest, current_date), date_trunc('month', now() AT TIME ZONE 'UTC')::date);
  EXECUTE format('ALTER TABLE %I RENAME TO %I', t || '_new', t || '_partitioned');
  WHILE m <= (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '12 months')::date LOOP
    -- The partitions take the final parent name's prefix.
    EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
      format('%s_y%sm%s', t, to_char(m, 'YYYY'), to_char(m, 'MM')), t || '_partitioned',
      m::timestamp AT TIME ZONE 'UTC', (m + interval '1 month')::timestamp AT TIME ZONE 'UTC');
    m := (m + interval '1 month')::date;
  END LOOP;
  EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', t || '_default', t || '_partitioned');
  EXECUTE format('INSERT INTO %I SELECT * FROM %I ORDER BY %s', t || '_partitioned', t, ord);
  FOR g IN SELECT grantee, privilege_type FROM information_schema.role_table_grants
            WHERE table_schema = current_schema() AND table_name = t AND grantee <> current_user LOOP
    EXECUTE format('GRANT %s ON TABLE %I TO %s', g.privilege_type, t || '_partitioned',
      CASE WHEN g.grantee = 'PUBLIC' THEN 'PUBLIC' ELSE quote_ident(g.grantee) END);
  END LOOP;
  EXECUTE format('DROP TABLE %I', t);
  EXECUTE format('ALTER TABLE %I RENAME TO %I', t || '_partitioned', t);
END $$;

SELECT msgx_partition_by_month('decision_event', 'recorded_at', 'position');
ALTER TABLE decision_event ADD PRIMARY KEY (position, recorded_at);
CREATE INDEX decision_event_msg ON decision_event (msg_id, position);
CREATE INDEX decision_event_flids ON decision_event USING gin (flids);
CREATE INDEX decision_event_kind ON decision_event (kind, position);
CREATE INDEX decision_event_reference ON decision_event (position) WHERE handler LIKE 'reference.%';
CREATE TRIGGER decision_event_no_update BEFORE UPDATE OR DELETE ON decision_event
  FOR EACH ROW EXECUTE FUNCTION decision_event_append_only();
CREATE TRIGGER decision_event_no_truncate BEFORE TRUNCATE ON decision_event
  FOR EACH STATEMENT EXECUTE FUNCTION decision_event_append_only();
DO $$
DECLARE p regclass;
BEGIN
  FOR p IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'decision_event'::regclass LOOP
    EXECUTE format('CREATE TRIGGER decision_event_no_truncate BEFORE TRUNCATE ON %s
                    FOR EACH STATEMENT EXECUTE FUNCTION decision_event_append_only()', p);
  END LOOP;
END $$;

SELECT msgx_partition_by_month('inbox_message', 'ingested_at', 'msg_id');
ALTER TABLE inbox_message ADD PRIMARY KEY (msg_id, ingested_at);

SELECT msgx_partition_by_month('proc_state_hst', 'archived_at', 'msg_id');
ALTER TABLE proc_state_hst ADD PRIMARY KEY (msg_id, archived_at);
CREATE INDEX proc_state_hst_identity ON proc_state_hst (identity_key);

DROP FUNCTION msgx_partition_by_month(text, text, text);

DO $$
DECLARE p regclass;
BEGIN
  FOR p IN SELECT inhrelid::regclass FROM pg_inherits
            WHERE inhparent IN ('decision_event'::regclass, 'inbox_message'::regclass, 'proc_state_hst'::regclass) LOOP
    PERFORM msgx_revoke_partition(p::text);
  END LOOP;
END $$;

-- What `msgx archive` wrote and dropped, one row per table and month (src/operations/archive/).
-- A row is inserted when the files are verified and the decision recorded, before any partition
-- is dropped; `dropped_at` is set when the month's partitions are gone, `restored_at` when
-- `msgx restore` attached them again.
CREATE TABLE history_archive (
  month          date NOT NULL,                 -- first day of the UTC month
  tbl            text NOT NULL CHECK (tbl IN ('decision_event', 'inbox_message', 'proc_state_hst')),
  file           text NOT NULL,                 -- absolute path of the gzip NDJSON file
  sha256         text NOT NULL,
  rows           bigint NOT NULL,
  min_key        bigint,                        -- smallest position (decision_event) or msg_id
  max_key        bigint,                        -- largest one
  decision       bigint NOT NULL,               -- position of the HistoryArchived decision
  dropped_at     timestamptz,
  restored_at    timestamptz,
  PRIMARY KEY (month, tbl)
);
