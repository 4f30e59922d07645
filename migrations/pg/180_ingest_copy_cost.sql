-- Ingest writes an inbox_message row and its proc_state row in one statement (copyInbox); nothing
-- ever deletes inbox_message. The foreign key from proc_state only re-checked that, one row lock
-- on inbox_message per copied message (a write per row), which made the copy about twice as
-- expensive (issue 20: ingest against a plain copy loop).
ALTER TABLE proc_state DROP CONSTRAINT proc_state_msg_id_fkey;

-- A message has no identity until the pump decodes it: the unique index need not hold an entry
-- for every PENDING row. Same uniqueness (NULLs never conflicted), fewer index writes per copy.
ALTER TABLE proc_state DROP CONSTRAINT proc_state_identity_key_key;
CREATE UNIQUE INDEX proc_state_identity ON proc_state (identity_key) WHERE identity_key IS NOT NULL;
