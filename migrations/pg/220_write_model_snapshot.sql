-- Write-model snapshots (docs/recovery.md "Write-model snapshots"): the pump's write model —
-- flights, reference store, plan requests, latest operation day — as of one log position, so that
-- a start or a standby folds only the decisions after it. A snapshot is a cache of the log, never
-- a source of truth: `fingerprint` names the fold code that made it, and a process whose fold code
-- differs never uses it (it folds from position 0 instead). The writer keeps the newest few; each
-- is inserted, and older ones deleted, in one transaction, so a crash leaves the previous ones whole.
CREATE TABLE write_model_snapshot (
  id           bigserial PRIMARY KEY,
  position     bigint NOT NULL CHECK (position > 0),
  fingerprint  text NOT NULL,                 -- FOLD_VERSION + digest of the fold's sources
  latest_day   text,                          -- the latest operation day the fold has seen (YYYY-MM-DD)
  flights      integer NOT NULL,
  bytes        integer NOT NULL,              -- length of body (gzip of the JSON document)
  write_ms     integer NOT NULL,              -- serialise + compress time, off the pump's path
  body         bytea NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX write_model_snapshot_newest ON write_model_snapshot (fingerprint, position DESC);
-- Not for the read API: flights as the writer sees them are in the read models already.
REVOKE ALL ON TABLE write_model_snapshot FROM PUBLIC;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'msgx_reader') THEN
    REVOKE ALL ON TABLE write_model_snapshot FROM msgx_reader;
  END IF;
END $$;
