/**
 * Reading the decision log for projectors: events after a position, in position order.
 * Projectors only act on `payload.changes` (docs/architecture.md); other payload fields stay in the log.
 */
import type { AppliedEvent } from '../domain/evolve.ts';
import type { Change } from '../domain/changes.ts';
import { decisionBody, decisionKindAt, type DecisionBody, type DecisionKind } from '../domain/decisionPayload.ts';
import { expandChanges, expandChangesSteps } from '../domain/compactChange.ts';
import { DEFAULT_TIME_SLICING, runSliced, SLICED_FROM_CHANGES } from '../platform/slicing.ts';
import type { Queryable } from '../platform/db.ts';

export interface DecisionEvent {
  readonly position: string;
  readonly msgId: string | null;
  /** Checked against the known kinds (decisionKindAt): an unknown kind is an error naming the position. */
  readonly kind: DecisionKind;
  /** `payload.changes`, null when the decision carries none (Skipped, Failed, Dead, …). */
  readonly changes: readonly Change[] | null;
  /** UTC ISO instant. */
  readonly recordedAt: string;
}

interface Row {
  position: string;
  msg_id: string | null;
  kind: string;
  changes: Change[] | null;
  recorded_at: string;
}

/**
 * Up to `limit` events after position `after`, ascending. (No upper bound in SQL on purpose: with a
 * range the planner may pick a bitmap scan plus sort over the whole range; this is an index scan.)
 */
export async function readDecisionsAfter(q: Queryable, after: string, limit: number): Promise<DecisionEvent[]> {
  const { rows } = await q.query<Row & { big: boolean | null }>(
    // recorded_at as UTC ISO text (as Date#toISOString prints it): no Date parsing per event.
    `SELECT position, msg_id, kind, ${bigOr("payload->'changes'", '$3')} AS changes, ${isBig('$3')} AS big,
            to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at
       FROM decision_event
      WHERE position > $1::bigint
      ORDER BY position
      LIMIT $2`,
    [after, limit, SLICED_FROM_CHANGES],
  );
  return eventsOf(q, rows);
}

/**
 * The rows as events. A big decision's changes are expanded in slices (src/platform/slicing.ts):
 * the read-back of a 16 MiB plan's 21,000 created flights does not hold the writer's loop.
 */
async function eventsOf(q: Queryable, rows: readonly (Row & { big: boolean | null })[]): Promise<DecisionEvent[]> {
  const out: DecisionEvent[] = [];
  for (const r of rows) {
    const changes = r.big ? (await runSliced(expandChangesSteps(await changesOneByOne(q, r.position)), DEFAULT_TIME_SLICING)).value : undefined;
    out.push(toDecisionEvent(r, changes));
  }
  return out;
}

/**
 * A decision's changes with SLICED_FROM_CHANGES or more of them (a plan) are not read as one jsonb
 * value: the driver's JSON.parse of a 16 MiB plan's 29 MB row held the writer's loop for 0.3 s
 * quiet, 2 s at load 20. Read here as one row per change, each parsed as its row arrives.
 */
const bigOr = (value: string, from: string): string => `CASE WHEN ${isBig(from)} THEN NULL ELSE ${value} END`;
const isBig = (from: string): string =>
  `(jsonb_typeof(payload->'changes') = 'array' AND jsonb_array_length(payload->'changes') >= ${from}::int)`;

async function changesOneByOne(q: Queryable, position: string): Promise<Change[]> {
  const { rows } = await q.query<{ change: Change }>(
    `SELECT e.change FROM decision_event d, jsonb_array_elements(d.payload->'changes') WITH ORDINALITY AS e(change, n)
      WHERE d.position = $1::bigint ORDER BY e.n`,
    [position],
  );
  const out = new Array<Change>(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = rows[i]!.change;
  return out;
}

/**
 * `readDecisionsAfter`, without the changes of the positions in `held` (the caller has those events
 * already: src/projections/sharedReads.ts): PostgreSQL neither reads nor sends their payloads. Such
 * an event comes back with `held: true` and `changes: null`; the others as readDecisionsAfter has them.
 */
export async function readDecisionsAfterHolding(
  q: Queryable,
  after: string,
  limit: number,
  held: readonly string[],
): Promise<(DecisionEvent & { readonly held: boolean })[]> {
  if (held.length === 0) return (await readDecisionsAfter(q, after, limit)).map((e) => ({ ...e, held: false }));
  const { rows } = await q.query<Row & { held: boolean; big: boolean | null }>(
    `SELECT position, msg_id, kind, position = ANY($3::bigint[]) AS held,
            CASE WHEN position = ANY($3::bigint[]) THEN NULL ELSE ${bigOr("payload->'changes'", '$4')} END AS changes,
            (position <> ALL($3::bigint[]) AND ${isBig('$4')}) AS big,
            to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at
       FROM decision_event
      WHERE position > $1::bigint
      ORDER BY position
      LIMIT $2`,
    [after, limit, held, SLICED_FROM_CHANGES],
  );
  return (await eventsOf(q, rows)).map((e, i) => ({ ...e, held: rows[i]!.held }));
}

/**
 * Up to `limit` events of the reference-data handlers after `after` and up to `upTo`, ascending:
 * the reference rebuild's page. The predicate is written exactly as the partial index
 * decision_event_reference (migration 080) has it, so the planner can use that index.
 */
export async function readReferenceDecisions(q: Queryable, after: string, upTo: string, limit: number): Promise<DecisionEvent[]> {
  const { rows } = await q.query<Row>(
    `SELECT position, msg_id, kind, payload->'changes' AS changes,
            to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at
       FROM decision_event
      WHERE handler LIKE 'reference.%' AND position > $1::bigint AND position <= $2::bigint
      ORDER BY position LIMIT $3`,
    [after, upTo, limit],
  );
  return rows.map((r) => toDecisionEvent(r));
}

/** A decision of one shard's page (readShardAfter): its changes still JSON text. */
export interface ShardDecision {
  readonly position: string;
  readonly msgId: string | null;
  readonly kind: string;
  /** `payload.changes` as JSON text; null when the decision has none. */
  readonly changes: string | null;
  /** UTC ISO instant. */
  readonly recordedAt: string;
  /** The decision names exactly one flight (its `flids`), of this shard; false: it comes to every shard. */
  readonly own: boolean;
}

/**
 * Up to `limit` decisions after `after`, ascending, that shard `shard` of `shards` folds
 * (src/projections/rebuild/shardFold.ts): those whose one flid's last character's code is `shard`
 * modulo `shards`, and every decision naming no flight or several (plans, archives). PostgreSQL
 * filters by the `flids` column, so each shard's reader gets only its part of the FLOPs; the shard
 * checks that an `own` decision's changes name no other shard's flight.
 */
export async function readShardAfter(q: Queryable, after: string, limit: number, shard: number, shards: number): Promise<ShardDecision[]> {
  const { rows } = await q.query<{ position: string; msg_id: string | null; kind: string; changes: string | null; recorded_at: string; own: boolean }>(
    `SELECT position, msg_id, kind, (payload->'changes')::text AS changes,
            to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at,
            cardinality(flids) = 1 AS own
       FROM decision_event
      WHERE position > $1::bigint AND (cardinality(flids) <> 1 OR ascii(right(flids[1], 1)) % $3 = $4)
      ORDER BY position
      LIMIT $2`,
    [after, limit, shards, shard],
  );
  return rows.map((r) => ({ position: r.position, msgId: r.msg_id, kind: r.kind, changes: r.changes, recordedAt: r.recorded_at, own: r.own }));
}

/** `expanded`: the row's changes, already expanded (a big decision's, in slices). */
function toDecisionEvent(r: Row, expanded?: Change[]): DecisionEvent {
  return {
    position: r.position,
    msgId: r.msg_id,
    kind: decisionKindAt(r.position, r.kind),
    changes: expanded ?? (Array.isArray(r.changes) ? expandChanges(r.changes) : null),
    recordedAt: r.recorded_at,
  };
}

/** What a fold of the write model needs of a decision: its place, its message, its time and its changes. */
export interface DecisionChanges {
  readonly position: string;
  readonly msgId: string | null;
  readonly recordedAt: Date;
  /** `payload.changes`, empty when the decision carries none. */
  readonly changes: readonly Change[];
}

/** Up to `limit` decisions after position `after`, ascending, with just what a fold needs. */
export async function readChangesAfter(q: Queryable, after: string, limit: number): Promise<DecisionChanges[]> {
  const { rows } = await q.query<{ position: string; msg_id: string | null; recorded_at: Date; changes: Change[] | null }>(
    `SELECT position, msg_id, recorded_at, payload->'changes' AS changes
       FROM decision_event WHERE position > $1::bigint ORDER BY position LIMIT $2`,
    [after, limit],
  );
  return rows.map((r) => ({ position: r.position, msgId: r.msg_id, recordedAt: r.recorded_at, changes: Array.isArray(r.changes) ? r.changes : [] }));
}

/** The envelope `applyDecision` folds, for an event that carries changes. */
export function appliedEvent(e: DecisionEvent & { changes: readonly Change[] }): AppliedEvent {
  return { position: e.position, msgId: e.msgId, recordedAt: e.recordedAt, changes: e.changes };
}

export function hasChanges(e: DecisionEvent): e is DecisionEvent & { changes: readonly Change[] } {
  return e.changes !== null && e.changes.length > 0;
}

/**
 * One whole decision_event row: its columns, and its kind and payload as the DecisionBody union
 * (src/domain/decisionPayload.ts), read through the boundary `decisionBody` — narrow on `kind`.
 * recordedAt is a UTC ISO instant. The read API's history, flight(asOf), the ESDB forwarder.
 */
export type DecisionRecord = DecisionColumns & DecisionBody;

export interface DecisionColumns {
  readonly position: string;
  readonly msgId: string | null;
  readonly handler: string | null;
  readonly handlerVersion: number | null;
  readonly flids: readonly string[];
  readonly recordedAt: string;
}

/**
 * The SELECT list whose rows `toDecisionRecord` takes. No `position::text AS position`: ORDER BY
 * position would then sort the text alias (10 before 9); int8 comes back as a string anyway.
 */
export const DECISION_RECORD_COLUMNS = `position, msg_id AS "msgId", kind, handler,
  handler_version AS "handlerVersion", flids, payload, recorded_at AS "recordedAt"`;

/** A row of DECISION_RECORD_COLUMNS as node-postgres returns it (jsonb parsed, timestamptz a Date). */
export interface DecisionRecordRow extends Omit<DecisionColumns, 'recordedAt'> {
  readonly kind: string;
  readonly payload: unknown;
  readonly recordedAt: Date;
}

/** The row as a DecisionRecord; DecisionLogError (naming the position) for an unknown kind or a malformed payload. */
export const toDecisionRecord = (r: DecisionRecordRow): DecisionRecord => ({
  position: r.position,
  msgId: r.msgId,
  handler: r.handler,
  handlerVersion: r.handlerVersion,
  flids: r.flids,
  recordedAt: r.recordedAt.toISOString(),
  ...decisionBody(r.position, r.kind, r.payload),
});

/** Whole decisions with positions in (from, to], ascending. */
export async function readDecisionRange(q: Queryable, from: string, to: string): Promise<DecisionRecord[]> {
  const { rows } = await q.query<DecisionRecordRow>(
    `SELECT ${DECISION_RECORD_COLUMNS} FROM decision_event WHERE position > $1::bigint AND position <= $2::bigint ORDER BY position`,
    [from, to],
  );
  return rows.map(toDecisionRecord);
}
