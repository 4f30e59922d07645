-- Shadow run and cut-over (SYSTEM.md §11, docs/operations.md "Shadow run and cut-over").
-- The mode is recorded in the own database, so that every msgx command against a shadow database
-- (request-plan, replay-deliveries, the api role, ...) behaves as shadow until a writer starts
-- without --shadow: the cut-over.
CREATE TABLE run_mode (
  id                 smallint PRIMARY KEY CHECK (id = 1),
  shadow             boolean NOT NULL DEFAULT false,
  topic_prefix       text,          -- Kafka topic / NDJSON file prefix of the shadow run (kept after cut-over)
  shadow_since       timestamptz,
  cutover_at         timestamptz,
  -- The last decision of the shadow run: no decision up to here is ever written back to CMINMSGS,
  -- inserted into COUTMSGS or sent to a production topic (its Kafka records keep the prefix).
  cutover_position   bigint,
  cutover_watermark  bigint,        -- the ingest watermark at cut-over (ingest carries on from it)
  updated_at         timestamptz NOT NULL DEFAULT now()
);
INSERT INTO run_mode (id) VALUES (1);
