/**
 * A realistic decision log for projection tests: the three corpus scenarios plus synthetic
 * traffic, each decided with the real domain against its own write model (their flids don't
 * overlap), appended in order. Returns the decisions and the merged write model.
 */
import type { FlightState } from '../../../src/domain/flight.ts';
import type { Pool } from '../../../src/platform/db.ts';
import { appendBatch, type DecisionInput } from '../../support/decisions.ts';
import { decideMessages } from './corpus.ts';
import { activeScenarioNames, readScenario } from '../../support/corpusDir.ts';
import { syntheticMessages, type SyntheticOptions } from './synthetic.ts';

export interface BuiltLog {
  decisions: DecisionInput[];
  flights: Map<string, FlightState>;
}

export function planLog(synthetic: SyntheticOptions | null, start?: BuiltLog): BuiltLog {
  const decisions: DecisionInput[] = [...(start?.decisions ?? [])];
  const flights = new Map(start?.flights ?? []);
  const chunks = start ? [] : activeScenarioNames().map((n) => readScenario(n).files.map((f) => f.xml));
  if (synthetic) chunks.push(syntheticMessages(synthetic));
  for (const xmls of chunks) {
    const out = decideMessages(xmls, { firstMsgId: decisions.length + 1, firstPosition: decisions.length + 1 });
    decisions.push(...out.decisions);
    for (const [k, v] of out.flights) flights.set(k, v);
  }
  return { decisions, flights };
}

/** Plan (once per options, cached: deciding is pure) and append in one transaction. */
const planned = new Map<string, BuiltLog>();
export async function buildLog(pool: Pool, synthetic: SyntheticOptions | null): Promise<BuiltLog> {
  const key = JSON.stringify(synthetic);
  let log = planned.get(key);
  if (!log) planned.set(key, (log = planLog(synthetic)));
  await appendBatch(pool, log.decisions);
  return log;
}
