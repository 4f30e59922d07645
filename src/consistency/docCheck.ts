/**
 * Flight documents (readModel/flightDoc.ts, what the read API's fast path serves) against the
 * fold: a document of the current version must be the fold's document of that flight. Each
 * top-level field of the document that differs is one mismatch (`doc.<field>`). Documents of
 * another version (or none) are not served — those flights are read from their rows, which
 * flightCheck compares — so they are not mismatches; `msgx rebuild flights` rewrites them.
 */
import type { FlightState } from '../domain/flight.ts';
import { sameValue } from '../domain/lists.ts';
import type { Queryable } from '../platform/db.ts';
import { DOC_VERSION, flightDoc } from '../readModel/flightDoc.ts';
import type { Mismatch } from './report.ts';

/** The current-version documents of some flights (undefined: all of them). */
export async function loadDocs(q: Queryable, flids: readonly string[] | undefined): Promise<Map<string, Record<string, unknown>>> {
  if (flids !== undefined && flids.length === 0) return new Map();
  const { rows } = await q.query<{ flid: string; doc: Record<string, unknown> }>(
    `SELECT flid::text AS flid, doc FROM flight_schd WHERE doc_version = $1 AND ($2::bigint[] IS NULL OR flid = ANY($2::bigint[]))`,
    [DOC_VERSION, flids ?? null],
  );
  return new Map(rows.map((r) => [r.flid, r.doc]));
}

export function compareDocs(log: ReadonlyMap<string, FlightState>, docs: ReadonlyMap<string, Record<string, unknown>>): Mismatch[] {
  const out: Mismatch[] = [];
  for (const [flid, doc] of docs) {
    const state = log.get(flid);
    if (state === undefined) continue; // flightCheck reports the row as not in the log
    const want = flightDoc(state) as unknown as Record<string, unknown>;
    if (sameValue(want, doc)) continue;
    for (const field of new Set([...Object.keys(want), ...Object.keys(doc)])) {
      if (!sameValue(want[field] ?? null, doc[field] ?? null)) out.push({ check: 'flights', flid, field: `doc.${field}`, log: want[field] ?? null, row: doc[field] ?? null });
    }
  }
  return out;
}
