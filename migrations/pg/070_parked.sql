-- PARKED (interface.md): CODEC_ERROR and UNSUPPORTED messages end at once without retries and
-- without holding the FIFO; they stay replayable (msgx replay --class CODEC_ERROR|UNSUPPORTED).
-- Parked rows are never archived by the history sweep (they wait for a codec fix or a handler).
ALTER TABLE proc_state DROP CONSTRAINT proc_state_state_check;
ALTER TABLE proc_state ADD CONSTRAINT proc_state_state_check
  CHECK (state IN ('PENDING', 'SUCCEEDED', 'SKIPPED', 'FAILED', 'DEAD', 'PARKED'));

CREATE INDEX proc_state_parked ON proc_state (error_class, msg_id) WHERE state = 'PARKED';
