/**
 * Flight documents for the fast path: the stored ones (readModel/flightDoc.ts, one statement for a
 * board page or a set of flids); a row whose document is missing or of another version is built
 * from the rows through the request's batch loaders, as the normal path reads it.
 */
import type { FlightState, ListName } from '../../domain/flight.ts';
import { DOC_VERSION, flightDoc, type FlightDoc } from '../../readModel/flightDoc.ts';
import { DETAIL_SPECS } from '../../readModel/flightRows.ts';
import type { ReadContext } from '../graphql/context.ts';
import { selectBoardDocs, selectFlightDocs, type BoardFilter, type BoardKey, type DocRow } from '../sql/selectBoard.ts';

async function fromRows(ctx: ReadContext, flid: string): Promise<FlightDoc | null> {
  const state = await ctx.loaders.flight.load(flid);
  if (state === null) return null;
  const lists = await Promise.all(DETAIL_SPECS.map((spec) => ctx.loaders.details[spec.table].load(flid)));
  const full: Record<string, unknown> = { ...state };
  DETAIL_SPECS.forEach((spec, i) => {
    for (const name of spec.lists) full[name] = lists[i]![name as ListName];
  });
  return flightDoc(full as unknown as FlightState);
}

/** Each row's document; rows without a current one are built from the rows (null if the flight went meanwhile). */
async function complete(ctx: ReadContext, rows: readonly DocRow[]): Promise<(FlightDoc | null)[]> {
  if (rows.every((r) => r.doc !== null)) return rows.map((r) => r.doc);
  return Promise.all(rows.map((r) => r.doc ?? fromRows(ctx, r.flid)));
}

export async function boardDocs(ctx: ReadContext, filter: BoardFilter, after: BoardKey | null, limit: number): Promise<FlightDoc[]> {
  const docs = await complete(ctx, await selectBoardDocs(ctx.deps.db, filter, after, limit, DOC_VERSION));
  return docs.filter((d): d is FlightDoc => d !== null);
}

export async function flightDocById(ctx: ReadContext, flid: string): Promise<FlightDoc | null> {
  const [doc] = await complete(ctx, await selectFlightDocs(ctx.deps.db, [flid], DOC_VERSION));
  return doc ?? null;
}
