/**
 * Reference-data decisions (reference.md), pure:
 *
 *   DNLD / RESP  the complete list of the kind: upsert every record, delete the kind's records the
 *                message lacks (ReferenceDeleted 'snapshot'), then ReferenceSnapshotApplied. With
 *                no record (after keyless ones are left out) nothing changes: a warning, since an
 *                empty list is far more likely a sender fault than "no airlines".
 *   ADD          upsert the whole record
 *   UPD          upsert: present elements replace, absent keep, empty clear
 *   DEL          delete by key (other elements ignored); an unknown key is listed, and when no
 *                record applied the decision is skipped 'unknown-record'
 *
 * A keyless record is listed (`skippedRecords`) and skipped; the rest applies. A change is emitted
 * only when the store changes (a repeated message changes nothing), except the snapshot summary.
 * A record named twice in one message: the later one wins.
 */
import type { Change } from '../changes.ts';
import type { ReferenceMessage } from '../message.ts';
import type { ReferenceDeleted, ReferenceSnapshotApplied, ReferenceUpserted } from './changes.ts';
import { mergeFields, sameFields, type RefFields } from './record.ts';
import type { ReferenceState } from './state.ts';

export interface SkippedRecord {
  /** 1-based place among the message's records. */
  readonly index: number;
  readonly reason: 'missing-key' | 'invalid-period' | 'invalid-dyop';
  readonly detail?: string;
}

export interface ReferenceOutcome {
  readonly changes: Change[];
  readonly skippedRecords: SkippedRecord[];
  /** DEL of codes the store does not hold. */
  readonly unknownRecords: string[];
  /** Set when nothing of the message could be applied. */
  readonly skipped?: 'unknown-record';
  /** For the audit (e.g. RECS differs from the records). */
  readonly notes: string[];
  /** To be logged at warn level (never carries record values). */
  readonly warnings: string[];
}

export function decideReference(store: ReferenceState, msg: ReferenceMessage): ReferenceOutcome {
  const current = store.get(msg.kind) ?? new Map<string, RefFields>();
  const skippedRecords: SkippedRecord[] = msg.records
    .filter((r) => r.code === null)
    .map((r) => ({ index: r.index, reason: 'missing-key' as const, detail: 'record without its key element' }));
  const keyed = msg.records.filter((r): r is typeof r & { code: string } => r.code !== null);
  const notes: string[] = [];
  const warnings: string[] = [];
  if (msg.declaredRecords !== null && msg.declaredRecords !== msg.records.length) {
    notes.push(`RECS says ${msg.declaredRecords}, the message holds ${msg.records.length} record(s)`);
  }
  if (skippedRecords.length > 0) notes.push(`${skippedRecords.length} record(s) without their key element skipped`);
  const changes: Change[] = [];
  const unknownRecords: string[] = [];
  // What this message has done so far (a code named twice sees its first record's result).
  const now = new Map<string, RefFields | null>();
  const get = (code: string): RefFields | undefined => (now.has(code) ? (now.get(code) ?? undefined) : current.get(code));
  const upsert = (code: string, fields: RefFields): boolean => {
    if (sameFields(get(code), fields)) return false;
    now.set(code, fields);
    changes.push({ type: 'ReferenceUpserted', kind: msg.kind, code, fields } satisfies ReferenceUpserted);
    return true;
  };

  switch (msg.styp) {
    case 'DNLD':
    case 'RESP': {
      const summary: ReferenceSnapshotApplied = {
        type: 'ReferenceSnapshotApplied', kind: msg.kind, stype: msg.styp, records: keyed.length,
        declaredRecords: msg.declaredRecords, upserted: 0, unchanged: 0, deleted: 0, skipped: skippedRecords.length,
        empty: keyed.length === 0,
      };
      if (keyed.length === 0) {
        warnings.push(`${msg.kind}/${msg.styp} holds no record: the ${msg.kind} records are left as they are`);
        return { changes: [summary], skippedRecords, unknownRecords, notes, warnings };
      }
      // A code named twice: the later record is the one the list holds.
      const held = new Map<string, RefFields>();
      for (const r of keyed) held.set(r.code, r.fields);
      for (const [code, fields] of held) {
        if (upsert(code, fields)) summary.upserted++;
        else summary.unchanged++;
      }
      for (const code of [...current.keys()].sort()) {
        if (held.has(code)) continue;
        changes.push({ type: 'ReferenceDeleted', kind: msg.kind, code, reason: 'snapshot' } satisfies ReferenceDeleted);
        summary.deleted++;
      }
      changes.push(summary);
      return { changes, skippedRecords, unknownRecords, notes, warnings };
    }
    case 'ADD':
      for (const r of keyed) upsert(r.code, r.fields);
      return { changes, skippedRecords, unknownRecords, notes, warnings };
    case 'UPD':
      for (const r of keyed) upsert(r.code, mergeFields(get(r.code), r.patch));
      return { changes, skippedRecords, unknownRecords, notes, warnings };
    case 'DEL': {
      let applied = 0;
      for (const r of keyed) {
        if (get(r.code) === undefined) {
          unknownRecords.push(r.code);
          continue;
        }
        now.set(r.code, null);
        changes.push({ type: 'ReferenceDeleted', kind: msg.kind, code: r.code, reason: 'del' } satisfies ReferenceDeleted);
        applied++;
      }
      const out: ReferenceOutcome = { changes, skippedRecords, unknownRecords, notes, warnings };
      return applied === 0 && unknownRecords.length > 0 ? { ...out, skipped: 'unknown-record' } : out;
    }
  }
}
