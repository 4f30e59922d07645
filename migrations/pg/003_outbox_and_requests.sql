-- Outbox fed by the outbox projector, drained by the dispatcher; outbound request tracking.

CREATE TABLE msg_event (
  event_id         bigserial PRIMARY KEY,
  target           text NOT NULL CHECK (target IN ('KAFKA_MSG', 'KAFKA_SCHD', 'COUTMSGS')),
  source_position  bigint NOT NULL,
  seq              integer NOT NULL,
  msg_id           bigint,
  flid             text,
  payload          jsonb NOT NULL,
  headers          jsonb NOT NULL DEFAULT '{}',
  state            text NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING', 'SENT', 'DEAD')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz,
  last_error       text,
  delivery_ref     jsonb,
  created_at       timestamptz NOT NULL,
  sent_at          timestamptz,
  UNIQUE (source_position, target, seq)
);
-- per-target FIFO head
CREATE INDEX msg_event_head ON msg_event (target, event_id) WHERE state = 'PENDING';
CREATE INDEX msg_event_dead ON msg_event (target, event_id) WHERE state = 'DEAD';
CREATE INDEX msg_event_msg ON msg_event (msg_id);

CREATE TABLE req_track (
  req_id          bigserial PRIMARY KEY,
  kind            text NOT NULL DEFAULT 'RQFD',
  window_from     timestamptz NOT NULL,
  window_to       timestamptz NOT NULL,
  mgid            text NOT NULL UNIQUE,          -- our MGID; a RESP names it in RMID
  state           text NOT NULL CHECK (state IN ('REGISTERED', 'SENT', 'WAITING', 'DONE', 'EXPIRED')),
  coutmsgs_id     bigint,
  answered_by     bigint,                        -- msg_id of the RESP that answered
  registered_at   timestamptz NOT NULL,
  sent_at         timestamptz,
  done_at         timestamptz,
  expires_at      timestamptz NOT NULL,
  last_error      text
);
CREATE INDEX req_track_open ON req_track (state, expires_at) WHERE state IN ('REGISTERED', 'SENT', 'WAITING');
