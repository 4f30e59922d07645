-- Read models written only by the flight projector (columns per messages.md).

CREATE TABLE flight_schd (
  flid                   bigint PRIMARY KEY,
  ffid                   text,
  operation_day          date NOT NULL,
  airline                text,
  flight_no              text,
  direction              char(1) CHECK (direction IN ('A', 'D')),
  scheduled_time         timestamptz,
  estimated_time         timestamptz,
  actual_time            timestamptz,
  prev_actual_departure  timestamptz,
  service_type           text,
  flight_nature          text,
  aircraft_type          text,
  registration           text,
  terminal               text,
  current_stand          text,
  link_airline           text,
  link_flight_no         text,
  link_flid              bigint,
  master_airline         text,
  master_flight_no       text,
  master_flid            bigint,
  boarding_open          timestamptz,
  last_call              timestamptz,
  boarding_closed        timestamptz,
  cancel_time            timestamptz,
  status                 text,
  public_status          text,
  public_remark          text,
  diversion_airport      text,
  diversion_direction    text,
  return_type            text,
  agent_passenger        text,
  agent_field            text,
  agent_maintenance      text,
  deleted                boolean NOT NULL DEFAULT false,
  deleted_reason         text,
  state_version          integer NOT NULL,
  last_position          bigint NOT NULL,
  last_msg_id            bigint,
  updated_at             timestamptz
);
CREATE INDEX flight_schd_day ON flight_schd (operation_day, scheduled_time, flid);
CREATE INDEX flight_schd_ffid ON flight_schd (ffid);
CREATE INDEX flight_schd_flight_no ON flight_schd (flight_no, operation_day);

CREATE TABLE flight_stand (
  flid bigint NOT NULL REFERENCES flight_schd (flid) ON DELETE CASCADE,
  seq_no integer NOT NULL,
  stand_code text NOT NULL,
  start_time timestamptz,
  end_time timestamptz,
  updated_at timestamptz,
  PRIMARY KEY (flid, seq_no)
);
CREATE INDEX flight_stand_code ON flight_stand (stand_code);

CREATE TABLE flight_gate (
  flid bigint NOT NULL REFERENCES flight_schd (flid) ON DELETE CASCADE,
  seq_no integer NOT NULL,
  gate_code text NOT NULL,
  planned_open timestamptz,
  planned_close timestamptz,
  actual_open timestamptz,
  actual_close timestamptz,
  kind text,
  updated_at timestamptz,
  PRIMARY KEY (flid, seq_no)
);
CREATE INDEX flight_gate_code ON flight_gate (gate_code);

CREATE TABLE flight_counter (
  flid bigint NOT NULL REFERENCES flight_schd (flid) ON DELETE CASCADE,
  seq_no integer NOT NULL,
  counter_code text NOT NULL,
  class text,
  planned_open timestamptz,
  planned_close timestamptz,
  actual_open timestamptz,
  actual_close timestamptz,
  kind text,
  updated_at timestamptz,
  PRIMARY KEY (flid, seq_no)
);

CREATE TABLE flight_belt (
  flid bigint NOT NULL REFERENCES flight_schd (flid) ON DELETE CASCADE,
  seq_no integer NOT NULL,
  belt_code text NOT NULL,
  class text,
  planned_open timestamptz,
  planned_close timestamptz,
  first_bag timestamptz,
  last_bag timestamptz,
  kind text,
  updated_at timestamptz,
  PRIMARY KEY (flid, seq_no)
);

CREATE TABLE flight_chute (
  flid bigint NOT NULL REFERENCES flight_schd (flid) ON DELETE CASCADE,
  seq_no integer NOT NULL,
  chute_code text NOT NULL,
  class text,
  planned_start timestamptz,
  planned_end timestamptz,
  actual_start timestamptz,
  actual_end timestamptz,
  kind text,
  updated_at timestamptz,
  PRIMARY KEY (flid, seq_no)
);

CREATE TABLE flight_bridge (
  flid bigint NOT NULL REFERENCES flight_schd (flid) ON DELETE CASCADE,
  seq_no integer NOT NULL,
  bridge_code text NOT NULL,
  operation text,
  op_time timestamptz,
  updated_at timestamptz,
  PRIMARY KEY (flid, seq_no)
);

CREATE TABLE flight_chock (
  flid bigint NOT NULL REFERENCES flight_schd (flid) ON DELETE CASCADE,
  seq_no integer NOT NULL,
  stand_code text,
  on_off text,
  chock_time timestamptz,
  updated_at timestamptz,
  PRIMARY KEY (flid, seq_no)
);

CREATE TABLE flight_delay (
  flid bigint NOT NULL REFERENCES flight_schd (flid) ON DELETE CASCADE,
  code text NOT NULL,
  start_time timestamptz,
  duration_min integer,
  updated_at timestamptz
);
-- unique (flid, code, start): NULL starts count as equal.
CREATE UNIQUE INDEX flight_delay_key ON flight_delay (flid, code, start_time) NULLS NOT DISTINCT;

CREATE TABLE flight_service (
  flid bigint NOT NULL REFERENCES flight_schd (flid) ON DELETE CASCADE,
  seq_no integer NOT NULL,               -- position in the message's SRVT list
  code text NOT NULL,
  qty integer,
  start_time timestamptz,
  end_time timestamptz,
  provider text,
  abnormal_reason text,
  abnormal_remark text,
  updated_at timestamptz,
  PRIMARY KEY (flid, seq_no)
);

CREATE TABLE flight_route_point (
  flid bigint NOT NULL REFERENCES flight_schd (flid) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('ERUT', 'ROUT')),
  seq_no integer NOT NULL,
  airport text NOT NULL,
  scheduled_arrival timestamptz,
  scheduled_departure timestamptz,
  updated_at timestamptz,
  PRIMARY KEY (flid, kind, seq_no)
);

CREATE TABLE schd_snap_log (
  position     bigint PRIMARY KEY,             -- the decision that applied the snapshot
  msg_id       bigint,
  styp         text NOT NULL,
  day          date NOT NULL,                  -- local date of the message
  window_start timestamptz,
  window_end   timestamptz,
  generation   integer NOT NULL,               -- nth snapshot applied for that day
  created      integer NOT NULL,
  updated      integer NOT NULL,
  deleted      integer NOT NULL,
  ignored      integer NOT NULL,
  recorded_at  timestamptz NOT NULL
);
