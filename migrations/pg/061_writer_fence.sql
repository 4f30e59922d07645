-- Issue 13: fencing of the single writer. Every time a process takes the writer lock it bumps
-- `epoch` (in the lock's own session). The pump commits only while the epoch is still its own, and
-- a delivery claims its rows with the epoch before sending: a writer that lost the lock without
-- noticing (a silently dropped connection) can neither decide nor send once a successor took over.
CREATE TABLE writer_fence (
  id        int PRIMARY KEY CHECK (id = 1),
  epoch     bigint NOT NULL,
  holder    text,
  taken_at  timestamptz
);
INSERT INTO writer_fence (id, epoch) VALUES (1, 0);

ALTER TABLE msg_event ADD COLUMN claim_epoch bigint, ADD COLUMN claimed_at timestamptz;
