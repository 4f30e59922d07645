/**
 * The reference projector's fold (pure): decision events → the rows to write. Later changes of
 * a record or season win; a deleted record is null. Shared by the live projector and the rebuild.
 */
import type { SeasonalScheduleReplaced } from '../../domain/reference/changes.ts';
import { REFERENCE_KINDS } from '../../domain/reference/kinds.ts';
import { nameOf, type RefFields } from '../../domain/reference/record.ts';
import type { DecisionEvent } from '../../log/readDecisions.ts';

export interface Stamp {
  readonly position: string;
  readonly msgId: string | null;
  /** UTC ISO instant. */
  readonly recordedAt: string;
}

export interface RecordRow extends Stamp {
  readonly kind: string;
  readonly code: string;
  readonly fields: RefFields;
  readonly name: string | null;
  readonly nameLocal: string | null;
}

export interface SeasonWrite extends Stamp {
  readonly change: SeasonalScheduleReplaced;
}

export interface PendingReference {
  /** `kind \0 code` → the record now, or null: deleted. */
  readonly records: Map<string, RecordRow | { kind: string; code: string; deleted: true }>;
  readonly seasons: Map<string, SeasonWrite>;
}

export const emptyPendingReference = (): PendingReference => ({ records: new Map(), seasons: new Map() });

const recordKey = (kind: string, code: string): string => `${kind}\u0000${code}`;

export function foldReferenceEvents(events: readonly DecisionEvent[], pending: PendingReference): void {
  for (const e of events) {
    for (const c of e.changes ?? []) {
      const stamp: Stamp = { position: e.position, msgId: e.msgId, recordedAt: e.recordedAt };
      if (c.type === 'ReferenceUpserted') {
        const info = REFERENCE_KINDS[c.kind];
        const names = info ? nameOf(c.fields, info) : { name: null, nameLocal: null };
        pending.records.set(recordKey(c.kind, c.code), { ...stamp, kind: c.kind, code: c.code, fields: c.fields, ...names });
      } else if (c.type === 'ReferenceDeleted') {
        pending.records.set(recordKey(c.kind, c.code), { kind: c.kind, code: c.code, deleted: true });
      } else if (c.type === 'SeasonalScheduleReplaced') {
        pending.seasons.set(c.season, { ...stamp, change: c });
      }
    }
  }
}

export function isPendingEmpty(p: PendingReference): boolean {
  return p.records.size === 0 && p.seasons.size === 0;
}
