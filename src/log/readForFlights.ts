/**
 * The decisions a check folds, page by page: the whole log (`--all`), or only what concerns some
 * flights — decisions that name them (decision_event.flids, GIN index), each with just the changes
 * for those flights, keeping every change's place in its decision (the outbox numbers KAFKA_MSG
 * rows by it). Folding the filtered changes gives those flights exactly the state a full fold
 * gives them: `evolve` of one flight never looks at another.
 */
import type { Change } from '../domain/changes.ts';
import { decisionKindAt, type DecisionKind } from '../domain/decisionPayload.ts';
import type { Queryable } from '../platform/db.ts';
import { expandChanges } from '../domain/compactChange.ts';
import { readDecisionsAfter } from './readDecisions.ts';

export interface LogEvent {
  readonly position: string;
  readonly msgId: string | null;
  readonly kind: DecisionKind;
  readonly recordedAt: string;
  /** The changes to fold (all of them, or those of the selected flights). */
  readonly changes: readonly Change[];
  /** Place of each change in its decision's `payload.changes`; null when `changes` is the whole list. */
  readonly indices: readonly number[] | null;
}

export const PAGE_SIZE = 5000;

/** Every event in (after, upTo], ascending, in pages; the next page is requested before the current one is used. */
export async function* readWholeLog(q: Queryable, after: string, upTo: string, pageSize = PAGE_SIZE): AsyncGenerator<LogEvent[]> {
  const limit = BigInt(upTo);
  let next = readDecisionsAfter(q, after, pageSize);
  for (;;) {
    const page = await next;
    const last = page[page.length - 1];
    const more = page.length === pageSize && last !== undefined && BigInt(last.position) < limit;
    if (more) next = readDecisionsAfter(q, last.position, pageSize);
    const out: LogEvent[] = [];
    for (const e of page) {
      if (BigInt(e.position) > limit) break;
      out.push({ position: e.position, msgId: e.msgId, kind: e.kind, recordedAt: e.recordedAt, changes: e.changes ?? [], indices: null });
    }
    if (out.length > 0) yield out;
    if (!more) return;
  }
}

/*
 * `named`: the decisions that name one of $1's flights, through the GIN index alone: what a flight sample
 * costs follows the sample, whatever the length of the log. Left to itself the planner walks the
 * primary key in position order over the whole log (the position range looks selective, the flids
 * match looks rare), or ANDs the GIN bitmap with a bitmap of the whole position range; both grow
 * with the history (docs/operations.md "Consistency checks").
 */

interface FilteredRow {
  position: string;
  msg_id: string | null;
  kind: string;
  recorded_at: string;
  changes: [number, Change][] | null;
}

/** Events in (after, upTo] that name one of `flids`, with only the changes for those flights. */
export async function* readFlightsLog(
  q: Queryable,
  flids: readonly string[],
  after: string,
  upTo: string,
  pageSize = PAGE_SIZE,
): AsyncGenerator<LogEvent[]> {
  if (flids.length === 0) return;
  const wanted = new Set(flids);
  let position = after;
  for (;;) {
    const { rows } = await q.query<FilteredRow>(
      `WITH named AS MATERIALIZED (SELECT position, recorded_at FROM decision_event WHERE flids && $1::text[])
       SELECT d.position, d.msg_id, d.kind,
              to_char(d.recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at,
              (SELECT jsonb_agg(jsonb_build_array(x.o - 1, x.c) ORDER BY x.o)
                 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(d.payload->'changes') = 'array'
                                                THEN d.payload->'changes' ELSE '[]'::jsonb END) WITH ORDINALITY AS x(c, o)
                WHERE x.c->>'flid' = ANY($1::text[])
                   OR (x.c->>'type' = 'FlightsArchived' AND x.c->'flids' ?| $1::text[])) AS changes
         FROM named n JOIN decision_event d ON d.position = n.position AND d.recorded_at = n.recorded_at
        WHERE n.position > $2::bigint AND n.position <= $3::bigint
        ORDER BY n.position
        LIMIT $4`,
      [flids, position, upTo, pageSize],
    );
    if (rows.length === 0) return;
    yield rows.map((r) => {
      const kept = r.changes ?? [];
      return {
        position: r.position,
        msgId: r.msg_id,
        kind: decisionKindAt(r.position, r.kind),
        recordedAt: r.recorded_at,
        // An archive decision names many flights: keep only the selected ones.
        changes: expandChanges(kept.map(([, c]) => (c.type === 'FlightsArchived' ? { ...c, flids: c.flids.filter((f) => wanted.has(f)) } : c))),
        indices: kept.map(([i]) => i),
      };
    });
    if (rows.length < pageSize) return;
    position = rows[rows.length - 1]!.position;
  }
}
