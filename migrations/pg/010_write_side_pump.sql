-- Write side additions (ingest, pump, replay, archive).

-- The failure class that led to DEAD(EXHAUSTED) (CODEC_ERROR, UNSUPPORTED or INFRA), so that
-- `msgx replay --class CODEC_ERROR` also finds messages that ran out of retries for that reason.
ALTER TABLE proc_state ADD COLUMN cause_class text
  CHECK (cause_class IN ('CODEC_ERROR', 'UNSUPPORTED', 'INFRA'));
ALTER TABLE proc_state_hst ADD COLUMN cause_class text;

-- Identity dedup must survive archiving: a message archived to proc_state_hst still holds its
-- identity (the pump looks in both tables; neither may hold an identity twice).
CREATE UNIQUE INDEX proc_state_hst_identity ON proc_state_hst (identity_key);

-- Archive job: terminal rows by age.
CREATE INDEX proc_state_terminal_age ON proc_state (updated_at, msg_id)
  WHERE state IN ('SUCCEEDED', 'SKIPPED', 'DEAD');

-- A gap id whose row showed up after all (before or after the gap expired).
ALTER TABLE inbox_gap ADD COLUMN appeared_at timestamptz;
CREATE INDEX inbox_gap_expired_unseen ON inbox_gap (source, opened_at)
  WHERE closed_by = 'expired' AND appeared_at IS NULL;

-- Decisions by kind (status, audits of GapExpired / ReplayRequested / FlightsArchived).
CREATE INDEX decision_event_kind ON decision_event (kind, position);
