-- msgx redecide --apply (docs/contract/system.md §10): which messages' outcomes each Correction decision
-- superseded, so message(id) can show the correction beside the message's own decisions. Written
-- in the transaction that appends the Correction; append-only like the log itself.
CREATE TABLE correction_supersedes (
  msg_id    bigint NOT NULL,
  position  bigint NOT NULL,               -- decision_event.position of the Correction
  PRIMARY KEY (msg_id, position)
);

CREATE FUNCTION correction_supersedes_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'correction_supersedes is append-only: % refused', TG_OP
    USING ERRCODE = 'P0001', HINT = 'append a new decision instead';
END $$;
CREATE TRIGGER correction_supersedes_no_update BEFORE UPDATE OR DELETE ON correction_supersedes
  FOR EACH ROW EXECUTE FUNCTION correction_supersedes_append_only();
CREATE TRIGGER correction_supersedes_no_truncate BEFORE TRUNCATE ON correction_supersedes
  FOR EACH STATEMENT EXECUTE FUNCTION correction_supersedes_append_only();

-- The read API shows it (msgx_reader gets SELECT on later tables by default privileges; say it anyway,
-- for databases whose role was created by an operator after 050 ran).
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'msgx_reader') THEN
    GRANT SELECT ON TABLE correction_supersedes TO msgx_reader;
  END IF;
END $$;
