-- Cheaper outbox rows (docs/benchmarks.md, figure 3 "plan snapshot"): a plan snapshot of 3,000
-- flights writes 6,000 msg_event payloads (~14 MB of JSON), and building jsonb from them was the
-- most expensive statement of the plan's projection; the dispatcher then turned the jsonb back into
-- text, node-postgres parsed it and the record was serialised again.
--
-- msg_event.payload becomes json: it is only ever read whole (the dispatcher sends it as it is
-- stored), so the stored text is what is wanted. json input only checks the syntax, and json output
-- is the stored text. Existing rows keep their content (jsonb's text of them). The column's lz4
-- compression (migration 310) is set again in case the type change dropped it.
ALTER TABLE msg_event ALTER COLUMN payload TYPE json USING payload::json;

DO $$
BEGIN
  ALTER TABLE msg_event ALTER COLUMN payload SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available on this server: outbox payloads stay pglz-compressed';
END $$;
