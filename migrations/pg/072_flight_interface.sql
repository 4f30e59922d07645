-- The whole AODB interface (interface.md): 21 more FLOP subtypes. Milestones, abnormal flight,
-- seats, remark, runway, VIP figures and the port event on flight_schd; VIP guests, push-backs and
-- towing events in their own detail tables (each list is replaced as a whole, like the others).
ALTER TABLE flight_schd
  ADD COLUMN eobt timestamptz,
  ADD COLUMN tobt timestamptz,
  ADD COLUMN cobt timestamptz,
  ADD COLUMN ctot timestamptz,
  ADD COLUMN iest timestamptz,
  ADD COLUMN appt timestamptz,
  ADD COLUMN egsr timestamptz,
  ADD COLUMN egst timestamptz,
  ADD COLUMN prev_estimated_departure timestamptz,
  ADD COLUMN next_estimated_arrival timestamptz,
  ADD COLUMN next_actual_arrival timestamptz,
  ADD COLUMN abnormal_reason text,
  ADD COLUMN abnormal_remark text,
  ADD COLUMN max_passengers integer,
  ADD COLUMN remark text,
  ADD COLUMN runway text,
  ADD COLUMN vip_passengers integer,
  ADD COLUMN vip_reserved integer,
  ADD COLUMN port_time timestamptz,
  ADD COLUMN port_code text;

CREATE TABLE flight_vip (
  flid bigint NOT NULL REFERENCES flight_schd (flid) ON DELETE CASCADE,
  seq_no integer NOT NULL,
  vip_code text NOT NULL,
  escorts integer,
  updated_at timestamptz,
  PRIMARY KEY (flid, seq_no)
);

CREATE TABLE flight_pushback (
  flid bigint NOT NULL REFERENCES flight_schd (flid) ON DELETE CASCADE,
  seq_no integer NOT NULL,
  push_time timestamptz,
  kind text,
  stand_code text,
  updated_at timestamptz,
  PRIMARY KEY (flid, seq_no)
);

CREATE TABLE flight_tow (
  flid bigint NOT NULL REFERENCES flight_schd (flid) ON DELETE CASCADE,
  seq_no integer NOT NULL,
  tow_time timestamptz,
  stand_code text,
  updated_at timestamptz,
  PRIMARY KEY (flid, seq_no)
);
