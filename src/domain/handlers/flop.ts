/**
 * FLOP messages: each block targets one flight. A block for an unknown FLID, or for a flight that
 * is deleted, is skipped (no change) and reported; the other blocks still apply. FDEL on an
 * already-deleted flight is not a skip — the flight is in the state the message asks for.
 */
import type { Change, FlightChange } from '../changes.ts';
import type { FlightState } from '../flight.ts';
import type { FlopAction, FlopMessage } from '../message.ts';
import { decideFdel } from './fdel.ts';
import { decideFlopFields } from './flopFields.ts';
import { decideFlopList } from './flopLists.ts';
import { WorkingSet } from './workingSet.ts';

/** What happened to one `<FLOP>` block (interface.md: the decision lists every block's outcome). */
export type BlockResult = 'applied' | 'unknown-flight' | 'flight-deleted' | 'stale';
export interface BlockOutcome { flid: string; outcome: BlockResult }

export interface FlopOutcome {
  changes: Change[];
  /** One per block, in message order. */
  blocks: BlockOutcome[];
  /** Blocks applied to a live flight (with or without changes). */
  applied: number;
  unknownFlids: string[];
  deletedFlids: string[];
}

function actionChanges(state: FlightState, action: FlopAction): FlightChange[] {
  switch (action.kind) {
    case 'set-fields':
      return decideFlopFields(state, action.fields);
    case 'replace-list':
      return decideFlopList(state, action);
    case 'delete':
      return decideFdel(state);
  }
}

export function decideFlop(flights: ReadonlyMap<string, FlightState>, msg: FlopMessage): FlopOutcome {
  const ws = new WorkingSet(flights);
  const outcome: FlopOutcome = { changes: [], blocks: [], applied: 0, unknownFlids: [], deletedFlids: [] };
  for (const op of msg.ops) {
    const state = ws.get(op.flid);
    if (state === undefined) {
      outcome.unknownFlids.push(op.flid);
      outcome.blocks.push({ flid: op.flid, outcome: 'unknown-flight' });
      continue;
    }
    if (state.deleted && op.action.kind !== 'delete') {
      outcome.deletedFlids.push(op.flid);
      outcome.blocks.push({ flid: op.flid, outcome: 'flight-deleted' });
      continue;
    }
    outcome.applied += 1;
    outcome.blocks.push({ flid: op.flid, outcome: 'applied' });
    for (const change of actionChanges(state, op.action)) ws.emit(change);
  }
  outcome.changes = ws.changes;
  return outcome;
}
