-- PostgreSQL text cannot hold U+0000 (SQLSTATE 22021) but the shared MySQL MEDIUMTEXT can. Such a
-- row is copied with U+FFFD in place of each U+0000 and flagged, so the pump can still rule it
-- MALFORMED (XML does not allow U+0000) instead of the copy failing and stalling ingest.
ALTER TABLE inbox_message ADD COLUMN nul_replaced boolean NOT NULL DEFAULT false;
