-- Delivery (dispatcher) and plan requests: what 003 did not have.

-- A KAFKA_SCHD batch is claimed as a unit: its rows carry the event_id of the batch's first row.
-- A failed batch is retried as exactly the same set of rows; rows arriving meanwhile wait for the
-- next batch. Unclaimed pending rows have batch_id NULL.
ALTER TABLE msg_event ADD COLUMN batch_id bigint;
CREATE INDEX msg_event_open_batch ON msg_event (target, batch_id) WHERE state = 'PENDING' AND batch_id IS NOT NULL;

-- Plan requests: the local operation day a daily scheduled request asks for (one request per day),
-- and the retry state of sending it to COUTMSGS.
ALTER TABLE req_track ADD COLUMN daily_for date;
ALTER TABLE req_track ADD COLUMN send_attempts integer NOT NULL DEFAULT 0;
ALTER TABLE req_track ADD COLUMN next_send_at timestamptz;
CREATE UNIQUE INDEX req_track_daily ON req_track (daily_for) WHERE daily_for IS NOT NULL;

-- The request tracker's read position in decision_event (it looks for SCHD/RESP answers).
CREATE TABLE req_track_cursor (
  id          smallint PRIMARY KEY CHECK (id = 1),
  position    bigint NOT NULL DEFAULT 0,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO req_track_cursor (id) VALUES (1);
