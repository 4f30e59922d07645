import type { PoolClient } from '../platform/db.ts';
import { columnArrays, unnestOf, type CellValue, type ColumnSpec } from '../platform/sqlBatch.ts';
import { Channels } from '../platform/channels.ts';
import type { DecisionBody, DecisionKind, DecisionOf } from '../domain/decisionPayload.ts';
import { compactChanges, compactCreated } from '../domain/compactChange.ts';
import { stepCounter, type Steps } from '../domain/steps.ts';

/**
 * The one way anything appends to `decision_event`: inside the caller's transaction, after
 * `lockPipeline` took the `pipeline_lock` row. Positions are `last_position + 1 …`, handed out while
 * the row lock is held, so they are gap-free and log order equals commit order.
 */

/**
 * The decision kinds and their payloads are the domain's (src/domain/decisionPayload.ts): a
 * NewDecision is an envelope plus one `{ kind, payload }` of the DecisionBody union, so a writer
 * that writes a payload its kind does not have gets a compile error.
 */
export type { DecisionKind } from '../domain/decisionPayload.ts';

/** Kinds that end a message's processing (exactly one per message since its last ReplayRequested). */
export const TERMINAL_KINDS: readonly DecisionKind[] = ['Applied', 'Skipped', 'Dead', 'Parked'];

/** The columns of a decision besides its kind and payload. */
export interface DecisionEnvelope {
  readonly msgId: string | null;
  readonly handler?: string | null;
  readonly handlerVersion?: number | null;
  readonly flids?: readonly string[];
  /**
   * The stored payload's JSON text, made beforehand (storedPayloadText, a slice at a time, by the
   * pump for a big decision); absent: made when the append is staged.
   */
  readonly storedText?: string;
}

export type NewDecision = DecisionEnvelope & DecisionBody;
/** A new decision of kind K. */
export type NewDecisionOf<K extends DecisionKind> = DecisionEnvelope & DecisionOf<K>;

// flids and payload are jsonb columns: one JSON-array parameter each, never jsonb[] (sqlBatch.ts).
const COLUMNS: readonly ColumnSpec[] = [
  { name: 'position', type: 'bigint' },
  { name: 'msg_id', type: 'bigint' },
  { name: 'kind', type: 'text' },
  { name: 'handler', type: 'text' },
  { name: 'handler_version', type: 'integer' },
  { name: 'flids', type: 'jsonb' },
  { name: 'payload', type: 'jsonb' },
];

/** The statement that takes the pipeline lock (row lock until COMMIT/ROLLBACK). */
const PIPELINE_LOCK_ROW = 'SELECT last_position::text AS last_position FROM pipeline_lock WHERE id = 1 FOR UPDATE';

/** Take the pipeline lock (row lock until COMMIT/ROLLBACK); returns the last position handed out. */
export async function lockPipeline(c: PoolClient): Promise<string> {
  const { rows } = await c.query<{ last_position: string }>(PIPELINE_LOCK_ROW);
  const position = rows[0]?.last_position;
  if (typeof position !== 'string') throw new Error('pipeline_lock row 1 is missing: the schema is not migrated');
  return position;
}

/**
 * The append as data-modifying CTEs, to run alone (appendDecisions) or with the messages' outcomes
 * in one statement (appendWithOutcomes.ts), there only `when` its condition `go` holds (a constant
 * text, by its type). Parameters: $1 the last new position, $2 recorded_at,
 * $3–$9 the decisions' columns (COLUMNS), $10 the NOTIFY channel. For src/log only.
 */
export function appendCtes(when: 'true' | 'EXISTS (SELECT 1 FROM go)' = 'true'): string {
  return `appended_lock AS (UPDATE pipeline_lock SET last_position = $1::bigint, updated_at = $2::timestamptz WHERE id = 1 AND ${when}),
    appended AS (
      INSERT INTO decision_event (position, msg_id, kind, handler, handler_version, flids, payload, recorded_at)
      SELECT d.position, d.msg_id, d.kind, d.handler, d.handler_version,
             ARRAY(SELECT jsonb_array_elements_text(d.flids)), d.payload, $2::timestamptz
        FROM ${unnestOf(COLUMNS, 3)} AS d(position, msg_id, kind, handler, handler_version, flids, payload)
       WHERE ${when})`;
}
/** A select-list expression that sends the append's NOTIFY (delivered at COMMIT). For src/log only. */
export const APPEND_NOTIFY = 'pg_notify($10, $1::bigint::text)';
const APPEND = `WITH ${appendCtes()} SELECT ${APPEND_NOTIFY}`;

/**
 * Append `decisions` after `lastPosition` (the value `lockPipeline` returned in this transaction),
 * advance `pipeline_lock` and NOTIFY `msgx_decision` with the highest new position (delivered at
 * COMMIT) — one statement. Returns the positions, in order.
 */
export async function appendDecisions(
  c: PoolClient,
  lastPosition: string,
  decisions: readonly NewDecision[],
  recordedAt: Date,
): Promise<string[]> {
  if (decisions.length === 0) return [];
  const { values, positions } = appendValues(lastPosition, decisions, recordedAt);
  await c.query(APPEND, values);
  return positions;
}

/** A decision as appended: its position and columns, its payload as the JSON text sent. */
export interface AppendedRow {
  readonly position: string;
  readonly msgId: string | null;
  readonly kind: DecisionKind;
  readonly payload: string;
}

/**
 * The parameters of appendCtes / APPEND_NOTIFY ($1–$10) for `decisions` after `lastPosition`, their
 * positions, and the rows as sent (appendedEvents, src/log/appendedEvents.ts).
 */
export function appendValues(
  lastPosition: string,
  decisions: readonly NewDecision[],
  recordedAt: Date,
): { values: unknown[]; positions: string[]; rows: AppendedRow[] } {
  const first = BigInt(lastPosition) + 1n;
  const positions = decisions.map((_, i) => String(first + BigInt(i)));
  const appended = decisions.map((d, i): AppendedRow => ({
    position: positions[i]!, msgId: d.msgId, kind: d.kind, payload: d.storedText ?? JSON.stringify(storedPayload(d)),
  }));
  const rows = decisions.map((d, i): CellValue[] => [
    positions[i]!, d.msgId, d.kind, d.handler ?? null, d.handlerVersion ?? null, JSON.stringify(d.flids ?? []), appended[i]!.payload,
  ]);
  return { values: [positions[positions.length - 1]!, recordedAt, ...columnArrays(rows, COLUMNS), Channels.decision], positions, rows: appended };
}

/** The payload as stored: created flights compact (src/domain/compactChange.ts; read back full by every reader). */
function storedPayload(d: DecisionBody): unknown {
  return d.kind === 'Applied' || d.kind === 'Correction' ? { ...d.payload, changes: compactChanges(d.payload.changes) } : d.payload;
}

/** Opens the JSON text of a stored payload whose first key is `changes`, with an empty list. */
const EMPTY_CHANGES = '{"changes":[]';

/**
 * The stored payload's JSON text in steps (src/domain/steps.ts), the same text as
 * JSON.stringify(storedPayload(d)): the changes are written one by one (a compact FlightCreated
 * each), between them the steps yield — a 16 MiB plan's 27 MB of JSON is not one uninterrupted
 * stringify on the writer's loop (docs/projections.md "Big decisions").
 */
export function* storedPayloadText(d: DecisionBody): Steps<string> {
  if (d.kind !== 'Applied' && d.kind !== 'Correction') return JSON.stringify(d.payload);
  const rest = JSON.stringify({ ...d.payload, changes: [] });
  if (!rest.startsWith(EMPTY_CHANGES)) return JSON.stringify(storedPayload(d));
  const { changes } = d.payload;
  const parts = new Array<string>(changes.length);
  const step = stepCounter();
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i]!;
    parts[i] = JSON.stringify(c.type === 'FlightCreated' ? compactCreated(c) : c);
    if (step()) yield;
  }
  return `{"changes":[${parts.join(',')}]${rest.slice(EMPTY_CHANGES.length)}`;
}
