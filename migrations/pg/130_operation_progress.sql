-- Issue 17: progress of long operator commands — `msgx rebuild`, `msgx redecide`, a rebuild started
-- from the console — so that the console (through the read API) shows them while they run, even
-- when they run in another process than the service, and for a while after they ended.
-- The running process writes its row at most about once a second (and when a phase changes, and
-- every few seconds as a heartbeat); never once per event. Times are the database's now(), so that
-- a reader in another process can tell a process that stopped reporting (killed) from a slow one.
CREATE TABLE operation_progress (
  id           bigserial PRIMARY KEY,
  kind         text NOT NULL,                          -- rebuild-flights | rebuild-reference | redecide
  detail       text,                                   -- the arguments worth showing (--from 0 …)
  started_by   text NOT NULL,                          -- --operator, user@host, console:<label>/<name>
  host         text NOT NULL,
  pid          integer NOT NULL,
  started_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  phase        text,                                   -- the operation's own step (replay, write, …)
  done         bigint NOT NULL DEFAULT 0,
  total        bigint,                                 -- null while not known
  state        text NOT NULL DEFAULT 'running'
               CHECK (state IN ('running', 'done', 'failed', 'cancelled', 'refused')),
  finished_at  timestamptz,
  message      text                                    -- the outcome line, or the error
);
CREATE INDEX operation_progress_started ON operation_progress (started_at DESC, id DESC);
