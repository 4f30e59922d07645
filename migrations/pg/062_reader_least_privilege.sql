-- Issue 13: least privilege beyond table grants, for every role of this database but the one that
-- migrates (the writer). PostgreSQL grants these to PUBLIC by default, so they are revoked from
-- PUBLIC and granted back to the migrating user:
--   * the session/transaction advisory locks on bigint keys: a reader could otherwise take the
--     writer's key (7735002) or the migrator's (7735001) and keep every writer from starting;
--   * pg_notify(): a reader could otherwise send forged notifications on msgx channels (the SQL
--     command NOTIFY cannot be revoked in PostgreSQL: every listener of msgx treats a
--     notification as a hint and checks it against the log — docs/security.md);
--   * TEMPORARY on the database: no temporary tables (storage, catalog bloat);
--   * creating large objects (lo_create, lo_creat, lo_from_bytea): storage outside any table.
-- Only an owner of these objects (a superuser for the functions) can revoke them; otherwise a
-- NOTICE says what an administrator should run, and the migration still counts as applied.
DO $$
DECLARE
  fn text;
  me text := quote_ident(current_user);
BEGIN
  IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    RAISE NOTICE 'msgx least privilege not applied: the migrating user is not a superuser. '
      'Run migrations/pg/062_reader_least_privilege.sql as a superuser (docs/security.md).';
    RETURN;
  END IF;
  FOREACH fn IN ARRAY ARRAY[
    'pg_advisory_lock(bigint)', 'pg_try_advisory_lock(bigint)',
    'pg_advisory_lock_shared(bigint)', 'pg_try_advisory_lock_shared(bigint)',
    'pg_advisory_xact_lock(bigint)', 'pg_try_advisory_xact_lock(bigint)',
    'pg_advisory_xact_lock_shared(bigint)', 'pg_try_advisory_xact_lock_shared(bigint)',
    'pg_notify(text, text)'
  ] LOOP
    EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', fn);
    EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %s', fn, me);
  END LOOP;
  FOREACH fn IN ARRAY ARRAY['lo_create(oid)', 'lo_creat(integer)', 'lo_from_bytea(oid, bytea)'] LOOP
    EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', fn);
  END LOOP;
  EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
  EXECUTE format('GRANT TEMPORARY ON DATABASE %I TO %s', current_database(), me);
END $$;
