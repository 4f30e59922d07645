-- Which message last set each field and list of a flight (FlightState.sources): the stale rule of
-- a replayed message compares against it (docs/domain.md). Kept in the read model so that a state
-- read back from rows equals the folded one.
ALTER TABLE flight_schd ADD COLUMN field_sources jsonb;
