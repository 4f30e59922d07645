-- Cheaper projection writes (docs/benchmarks.md, figure 3 "plan snapshot"): a plan snapshot of
-- 3,000 flights writes 3,000 flight documents (~2.3 kB of JSON each) and 6,000 msg_event payloads
-- of the same size, and PostgreSQL's CPU for them was dominated by parsing and compressing JSON.
--
-- flight_schd.doc becomes json: the document is only ever read whole (the read API's fast path and
-- `msgx verify` parse it in node), so the stored text is what is wanted. json input only checks the
-- syntax (about half the CPU of building jsonb) and json output is the stored text (no jsonb →
-- text on every board read). The content is unchanged, so DOC_VERSION stays.
ALTER TABLE flight_schd ALTER COLUMN doc TYPE json USING doc::json;

-- lz4 instead of pglz for the values large enough to be compressed (the documents and the outbox
-- payloads): several times faster to compress and to read back. A server built without lz4
-- keeps pglz: nothing depends on the method but speed.
DO $$
BEGIN
  ALTER TABLE flight_schd ALTER COLUMN doc SET COMPRESSION lz4;
  ALTER TABLE msg_event ALTER COLUMN payload SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available on this server: flight documents and outbox payloads stay pglz-compressed';
END $$;
