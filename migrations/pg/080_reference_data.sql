-- Reference data (23 kinds of master data), seasonal schedules and reference requests (issue 16,
-- docs/domain.md "Reference data"). Read models of the `reference` projector: one row per
-- (kind, code) and one per record of a season. Both are functions of the decision log alone and
-- are rebuilt by `msgx rebuild reference`.
CREATE TABLE reference_record (
  kind           text NOT NULL,
  code           text NOT NULL,
  fields         jsonb NOT NULL,                -- the record's elements (tag names; lists as arrays)
  name           text,                          -- the kind's English name element
  name_local     text,                          -- the kind's local (Chinese) name element
  last_position  bigint NOT NULL,
  last_msg_id    bigint,
  updated_at     timestamptz NOT NULL,          -- recorded_at of the record's last change
  source         text NOT NULL DEFAULT 'AODB',  -- the legacy's ADMINAPI / PIPELINE have no writer here
  PRIMARY KEY (kind, code)
);

CREATE TABLE seasonal_flight (
  season            text NOT NULL,
  seq               integer NOT NULL,           -- place of the record in the season's message
  airline           text,
  flight_no         text,
  direction         text,                       -- A / D
  service_type      text,
  flight_nature     text,
  aircraft_type     text,
  terminal          text,
  max_passengers    integer,
  valid_from        date NOT NULL,
  valid_to          date NOT NULL,
  days_of_operation text NOT NULL,              -- DYOP: Monday..Sunday, '0' where it does not operate
  scheduled_time    text,                       -- SCHT HHmm local, as sent
  route             jsonb NOT NULL,
  linked_airline    text,
  linked_flight_no  text,
  fields            jsonb NOT NULL,
  last_position     bigint NOT NULL,
  last_msg_id       bigint,
  updated_at        timestamptz NOT NULL,
  PRIMARY KEY (season, seq)
);
CREATE INDEX seasonal_flight_order ON seasonal_flight (airline, flight_no, direction, season, seq);

CREATE TABLE seasonal_season (
  season         text PRIMARY KEY,
  start_date     date,
  end_date       date,
  flights        integer NOT NULL,
  skipped        integer NOT NULL,
  last_position  bigint NOT NULL,
  last_msg_id    bigint,
  updated_at     timestamptz NOT NULL
);

INSERT INTO projection_checkpoint (name) VALUES ('reference') ON CONFLICT (name) DO NOTHING;

-- Reference decisions are found without a scan of the log (rebuild reference, the at-start
-- request's "is the store empty?").
CREATE INDEX decision_event_reference ON decision_event (position) WHERE handler LIKE 'reference.%';

-- RQRD requests: req_track rows of kind 'RQRD' name the kind asked for and have no window.
ALTER TABLE req_track ALTER COLUMN window_from DROP NOT NULL;
ALTER TABLE req_track ALTER COLUMN window_to DROP NOT NULL;
ALTER TABLE req_track ADD COLUMN ref_kind text;
ALTER TABLE req_track ADD CONSTRAINT req_track_ref_kind CHECK ((kind = 'RQRD') = (ref_kind IS NOT NULL));
CREATE INDEX req_track_open_rqrd ON req_track (ref_kind) WHERE kind = 'RQRD' AND state IN ('REGISTERED', 'SENT', 'WAITING');

-- The read API reads the new read models (050 grants future tables by default privileges; say so
-- explicitly for a role created by an operator after that migration ran).
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'msgx_reader') THEN
    GRANT SELECT ON TABLE reference_record, seasonal_flight, seasonal_season TO msgx_reader;
  END IF;
END $$;
