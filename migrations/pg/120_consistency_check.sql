-- Consistency sentinel (issue 21): one row per check run of the writer's sentinel (on start, daily)
-- and of `msgx verify --record`. The read API's pipeline.consistency and /metrics read the latest
-- rows, so an api-only process shows what the writer found. Nothing here repairs anything.
CREATE TABLE consistency_check (
  id                bigserial PRIMARY KEY,
  trigger           text NOT NULL CHECK (trigger IN ('start', 'daily', 'cli')),
  scope             text NOT NULL,                -- all | sample | day | flights
  checked_at        timestamptz NOT NULL,         -- when the check's snapshot was taken
  sampled           integer NOT NULL,             -- flights compared with their fold
  decisions         integer NOT NULL,             -- decisions whose outbox rows were checked
  messages          integer NOT NULL,             -- terminal messages whose write-back was checked
  mismatches        integer NOT NULL,
  flights_position  bigint NOT NULL,              -- checkpoints the check compared at
  outbox_position   bigint NOT NULL,
  duration_ms       integer NOT NULL,
  report            jsonb NOT NULL                -- the mismatches (at most 1,000 kept)
);
CREATE INDEX consistency_check_at ON consistency_check (checked_at DESC, id DESC);
