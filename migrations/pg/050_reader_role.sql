-- Least privilege for the read API: a NOLOGIN role `msgx_reader` with SELECT on the read models
-- and the audit tables the API shows, and nothing else (no INSERT/UPDATE/DELETE/TRUNCATE, no
-- schema `mailbox`). An operator creates a LOGIN user in this role for MSGX_READ_DATABASE_URL
-- (docs/security.md).
--
-- Roles are cluster-global; grants are per database. Many databases may run this migration at the
-- same moment (one per test file, several environments on one server), so creating the role
-- tolerates losing that race. A migrating user without CREATEROLE gets a NOTICE and no grants,
-- unless an operator created the role beforehand (then the grants below still apply).
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'msgx_reader') THEN
    BEGIN
      CREATE ROLE msgx_reader NOLOGIN;
    EXCEPTION
      WHEN duplicate_object OR unique_violation THEN
        NULL; -- created meanwhile by a migration of another database: the role we wanted exists
      WHEN insufficient_privilege THEN
        RAISE NOTICE 'msgx_reader not created: the migrating user lacks CREATEROLE. '
          'Create it (CREATE ROLE msgx_reader NOLOGIN) and run the grants in docs/security.md.';
        RETURN;
    END;
  END IF;

  GRANT USAGE ON SCHEMA public TO msgx_reader;
  GRANT SELECT ON TABLE
    flight_schd, flight_stand, flight_gate, flight_counter, flight_belt, flight_chute,
    flight_bridge, flight_chock, flight_delay, flight_service, flight_route_point,
    schd_snap_log, decision_event, inbox_message, proc_state, proc_state_hst,
    inbox_cursor, inbox_gap, msg_event, projection_checkpoint, req_track, pipeline_lock
  TO msgx_reader;
  -- Tables the migrating user creates in public later (new read models of later migrations) are
  -- readable too. A projection rebuild builds its tables in another schema and copies the live
  -- tables' grants when it swaps them in (src/projections/rebuild/switchTables.ts).
  ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO msgx_reader;
END $$;
