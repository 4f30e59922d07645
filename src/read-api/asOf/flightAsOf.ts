import { changesOf } from '../../domain/decisionPayload.ts';
import { applyDecision } from '../../domain/evolve.ts';
import type { FlightState } from '../../domain/flight.ts';
import type { Queryable } from '../../platform/db.ts';
import { archivedMonthsUntil, type ArchivedMonthFiles } from '../../log/archivedHistory.ts';
import { selectFlightDecisionsUntil, selectFlightHistory, type DecisionRecord } from '../../log/readForMessages.ts';
import { archivedError } from '../graphql/errors.ts';

/**
 * Time travel: the flight as it was at `asOf`, folded from the decisions that touched it and were
 * recorded at or before that instant, through the same applyDecision as the pump and projectors.
 * null when the flight did not exist then (or had been archived). When that history may lie in an
 * archived month, an ARCHIVED error names the file to restore instead (docs/operations.md "Archive
 * a month"), never a state folded from part of it.
 */
export async function flightAsOf(q: Queryable, flid: string, asOf: string): Promise<FlightState | null> {
  const decisions = await selectFlightDecisionsUntil(q, flid, asOf);
  await refuseArchivedPart(q, flid, asOf, decisions[0]);
  const flights = new Map<string, FlightState>();
  for (const d of decisions) {
    // Only this flight's changes (and flight-less ones such as FlightsArchived): a plan snapshot
    // carries thousands of other flights that would be folded for nothing.
    const mine = changesOf(d).filter((c) => !('flid' in c) || c.flid === flid);
    if (mine.length === 0) continue;
    applyDecision(flights, { position: d.position, msgId: d.msgId, recordedAt: d.recordedAt, changes: mine });
  }
  return flights.get(flid) ?? null;
}

/**
 * With months archived up to `asOf`, the flight's history kept in the log is whole only when its
 * first decision there creates it; otherwise (or with no decision of it kept at all) part of it
 * may be archived: the ARCHIVED error names the month `asOf` falls in, or the newest one before.
 */
async function refuseArchivedPart(q: Queryable, flid: string, asOf: string, firstUntil: DecisionRecord | undefined): Promise<void> {
  const months = await archivedMonthsUntil(q, new Date(asOf));
  if (months.length === 0) return;
  const first = firstUntil ?? (await selectFlightHistory(q, flid, null, 1))[0];
  if (first && changesOf(first).some((c) => c.type === 'FlightCreated' && c.flid === flid)) return;
  const month = new Date(asOf).toISOString().slice(0, 7);
  const file = (months.find((m) => m.month === month) ?? months.at(-1)!).restoreFile;
  throw archivedError(
    `flight ${flid} as of ${asOf}: its history may lie in archived ${months.length === 1 ? 'month' : 'months'} ${months.map((m) => m.month).join(', ')}; ` +
      `${restoreList(months)}, or ask without asOf`,
    file,
  );
}

/** The restore commands, the month asOf needs most (the newest) first. */
const restoreList = (months: readonly ArchivedMonthFiles[]): string =>
  `restore ${[...months].reverse().map((m) => `msgx restore ${m.restoreFile}`).join('; ')}`;
