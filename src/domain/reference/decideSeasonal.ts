/**
 * Seasonal schedule decisions (SCHS DNLD/RESP, reference.md), pure: the season's records are
 * replaced by the message's valid records (other seasons untouched); records with an invalid
 * period or DYOP are listed and skipped. The change is emitted every time (it is the whole season).
 */
import type { SeasonalMessage } from '../message.ts';
import type { SeasonalScheduleReplaced } from './changes.ts';
import type { ReferenceOutcome } from './decideReference.ts';

export function decideSeasonal(msg: SeasonalMessage): ReferenceOutcome {
  const change: SeasonalScheduleReplaced = {
    type: 'SeasonalScheduleReplaced', stype: msg.styp, season: msg.season, startDate: msg.startDate, endDate: msg.endDate,
    flights: msg.flights, skipped: msg.skippedRecords.length,
  };
  const total = msg.flights.length + msg.skippedRecords.length;
  const notes: string[] = [];
  if (msg.declaredRecords !== null && msg.declaredRecords !== total) {
    notes.push(`RECS says ${msg.declaredRecords}, the season holds ${total} record(s)`);
  }
  if (msg.skippedRecords.length > 0) notes.push(`${msg.skippedRecords.length} record(s) with an invalid period or DYOP skipped`);
  return {
    changes: [change],
    skippedRecords: msg.skippedRecords.map((r) => ({ index: r.index, reason: r.reason, detail: r.detail })),
    unknownRecords: [],
    notes,
    warnings: total === 0 ? [`SCHS/${msg.styp} for season ${msg.season} holds no record: the season is now empty`] : [],
  };
}
