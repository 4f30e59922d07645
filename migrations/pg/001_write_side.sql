-- Write side: the single-writer lock, the ingest cursor and gaps, raw inbox, processing state,
-- and the append-only decision log.

CREATE TABLE pipeline_lock (
  id             smallint PRIMARY KEY CHECK (id = 1),
  last_position  bigint NOT NULL DEFAULT 0,   -- last decision_event.position handed out (gap-free)
  updated_at     timestamptz NOT NULL DEFAULT now()
);
INSERT INTO pipeline_lock (id) VALUES (1);

CREATE TABLE inbox_cursor (
  source      text PRIMARY KEY,               -- 'CMINMSGS'
  watermark   bigint NOT NULL DEFAULT 0,      -- highest id seen and copied
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Ids skipped between visible ids (a MySQL auto-increment that has not committed yet).
CREATE TABLE inbox_gap (
  source      text NOT NULL,
  gap_id      bigint NOT NULL,
  opened_at   timestamptz NOT NULL,
  closed_at   timestamptz,
  closed_by   text CHECK (closed_by IN ('appeared', 'expired')),
  PRIMARY KEY (source, gap_id)
);
CREATE INDEX inbox_gap_open ON inbox_gap (source, gap_id) WHERE closed_at IS NULL;

CREATE TABLE inbox_message (
  msg_id        bigint PRIMARY KEY,            -- CMINMSGS_ID
  source        text NOT NULL DEFAULT 'CMINMSGS',
  received_at   timestamptz,                   -- CMINMSGS_DATE_RECEIVED
  ingested_at   timestamptz NOT NULL,
  sndr          text,                          -- META as seen at first decode (audit)
  seqn          text,
  dttm          text,
  type          text,
  styp          text,
  rcvr          text,
  mgid          text,
  rmid          text,
  raw_xml       text NOT NULL
);

CREATE TABLE proc_state (
  msg_id            bigint PRIMARY KEY REFERENCES inbox_message (msg_id),
  state             text NOT NULL CHECK (state IN ('PENDING', 'SUCCEEDED', 'SKIPPED', 'FAILED', 'DEAD')),
  identity_key      text UNIQUE,
  error_class       text CHECK (error_class IN ('MALFORMED', 'CODEC_ERROR', 'UNSUPPORTED', 'INFRA', 'EXHAUSTED')),
  last_error        text,
  attempts          integer NOT NULL DEFAULT 0,
  next_attempt_at   timestamptz,
  first_failure_at  timestamptz,
  decided_position  bigint,                    -- position of the terminal decision
  backfill_state    text CHECK (backfill_state IN ('PENDING', 'DONE', 'DEAD')),
  backfill_status   text,                      -- PROCESSED / SKIPPED / DEAD, written to CMINMSGS_STATUS
  backfill_attempts integer NOT NULL DEFAULT 0,
  backfill_next_at  timestamptz,
  backfill_error    text,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL
);
-- FIFO head: the smallest unfinished id.
CREATE INDEX proc_state_unfinished ON proc_state (msg_id) WHERE state IN ('PENDING', 'FAILED');
CREATE INDEX proc_state_backfill ON proc_state (backfill_next_at, msg_id) WHERE backfill_state = 'PENDING';
CREATE INDEX proc_state_dead ON proc_state (error_class, msg_id) WHERE state IN ('FAILED', 'DEAD');

CREATE TABLE proc_state_hst (
  LIKE proc_state,
  archived_at timestamptz NOT NULL,
  PRIMARY KEY (msg_id)
);

CREATE TABLE decision_event (
  position         bigint PRIMARY KEY,         -- gap-free, commit order (handed out under pipeline_lock)
  msg_id           bigint,                     -- null for decisions not caused by a message
  kind             text NOT NULL,              -- Applied Skipped Failed Dead ReplayRequested FlightsArchived GapExpired ...
  handler          text,
  handler_version  integer,
  flids            text[] NOT NULL DEFAULT '{}',
  payload          jsonb NOT NULL,
  recorded_at      timestamptz NOT NULL
);
CREATE INDEX decision_event_msg ON decision_event (msg_id, position);
CREATE INDEX decision_event_flids ON decision_event USING gin (flids);

-- The log is append-only: the database itself refuses UPDATE, DELETE and TRUNCATE.
CREATE FUNCTION decision_event_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'decision_event is append-only: % refused', TG_OP
    USING ERRCODE = 'P0001', HINT = 'append a new decision instead';
END $$;
CREATE TRIGGER decision_event_no_update BEFORE UPDATE OR DELETE ON decision_event
  FOR EACH ROW EXECUTE FUNCTION decision_event_append_only();
CREATE TRIGGER decision_event_no_truncate BEFORE TRUNCATE ON decision_event
  FOR EACH STATEMENT EXECUTE FUNCTION decision_event_append_only();

CREATE TABLE projection_checkpoint (
  name        text PRIMARY KEY,
  position    bigint NOT NULL DEFAULT 0,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
