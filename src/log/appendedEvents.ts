/**
 * The events a committed append added to the log, as readDecisionsAfter would read them back —
 * built from the rows the append sent, without reading them (docs/projections.md "Shared reads").
 * The writer hands them to its projectors right after the commit: a plan snapshot's decision is
 * megabytes of jsonb that PostgreSQL would otherwise read, convert to text and send back.
 *
 * Each payload is parsed from the very JSON text the append sent, and created flights are expanded
 * as every reader expands them (expandChanges), so an event is the stored one value for value; only
 * the key order of objects may differ from jsonb's, which no reader depends on. recorded_at was
 * bound as a JavaScript Date (milliseconds), so its ISO text is what to_char prints for it.
 */
import type { Change } from '../domain/changes.ts';
import { expandChanges } from '../domain/compactChange.ts';
import type { AppendedRow } from './appendDecisions.ts';
import type { DecisionEvent } from './readDecisions.ts';

/** What an append sent: its rows and their recorded_at (StagedAppend has both). */
export interface Appended {
  readonly rows: readonly AppendedRow[];
  readonly recordedAt: Date;
}

/**
 * Payload text (characters) up to which an append's events are offered from the rows it sent. A
 * larger decision (a 16 MiB plan's is ~27 MB) would be parsed and expanded here in one go on the
 * writer's loop; its projectors read it back instead, where readDecisionsAfter expands it in slices
 * (docs/projections.md "Big decisions"). A plan snapshot of 3,000 flights (~7 MB) is offered.
 */
export const OFFER_MAX_PAYLOAD_CHARS = 8 * 1024 * 1024;

/** The append is small enough to hand over parsed (OFFER_MAX_PAYLOAD_CHARS). */
export function offerable(appended: Appended): boolean {
  let chars = 0;
  for (const r of appended.rows) chars += r.payload.length;
  return chars <= OFFER_MAX_PAYLOAD_CHARS;
}

export function appendedEvents(appended: Appended): DecisionEvent[] {
  const recordedAt = appended.recordedAt.toISOString();
  return appended.rows.map((r) => {
    const changes = (JSON.parse(r.payload) as { changes?: unknown }).changes;
    return { position: r.position, msgId: r.msgId, kind: r.kind, changes: Array.isArray(changes) ? expandChanges(changes as Change[]) : null, recordedAt };
  });
}
