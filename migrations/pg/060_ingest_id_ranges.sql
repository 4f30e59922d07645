-- Issue 13: a run of more than MAX_GAP_RUN missing CMINMSGS ids (an auto-increment jump, or a very
-- large uncommitted batch) is no longer only logged: it is recorded here, one row per run, so that
-- an audit can see every id msgx never read. Ids inside a run are not watched for late commits.
CREATE TABLE inbox_id_range (
  source       text NOT NULL,
  after_id     bigint NOT NULL,   -- last id read before the run
  next_id      bigint NOT NULL,   -- first id read after it
  missing      bigint NOT NULL,   -- next_id - after_id - 1
  recorded_at  timestamptz NOT NULL,
  PRIMARY KEY (source, after_id)
);

-- The late-commit watch pages through every expired gap whose row never showed up.
CREATE INDEX inbox_gap_watch ON inbox_gap (source, gap_id) WHERE closed_by = 'expired' AND appeared_at IS NULL;
