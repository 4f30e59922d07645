-- The read API's fast path (docs/read-api.md, "Fast path"): each flight_schd row carries the
-- flight's whole GraphQL view as one JSON document (readModel/flightDoc.ts), written by the flight
-- projector in the same statement as the row, so a board page or flight(flid) is one statement.
-- doc_version names the document's shape; a row whose version is not the code's (written before
-- this migration, or by an older release) is served from the rows instead until
-- `msgx rebuild flights` rewrites it.
ALTER TABLE flight_schd ADD COLUMN doc jsonb, ADD COLUMN doc_version smallint;
