/**
 * Feeding projectors in tests through the pump's own append (src/log/appendDecisions.ts):
 * take pipeline_lock FOR UPDATE, hand out the next gap-free positions, insert, NOTIFY msgx_decision.
 */
import type { Change } from '../../../src/domain/changes.ts';
import { withTransaction, type Pool, type PoolClient } from '../../../src/platform/db.ts';
import { appendDecisions, lockPipeline, type DecisionKind } from '../../../src/log/appendDecisions.ts';

export interface DecisionInput {
  msgId: string | null;
  kind: DecisionKind;
  handler?: string | null;
  handlerVersion?: number | null;
  flids?: readonly string[];
  payload: Record<string, unknown> & { changes?: readonly Change[] };
  recordedAt: Date;
}

/** Append inside an open transaction of `client` (caller commits); returns the position. */
export async function appendWith(client: PoolClient, d: DecisionInput): Promise<string> {
  const last = await lockPipeline(client);
  const [position] = await appendDecisions(client, last, [d], d.recordedAt);
  return position!;
}

export async function appendDecision(pool: Pool, d: DecisionInput): Promise<string> {
  return withTransaction(pool, (client) => appendWith(client, d));
}

export async function appendAll(pool: Pool, ds: readonly DecisionInput[]): Promise<string[]> {
  const out: string[] = [];
  for (const d of ds) out.push(await appendDecision(pool, d));
  return out;
}

/** Append many decisions in one transaction (consecutive positions): fast test setup. */
export async function appendBatch(pool: Pool, ds: readonly DecisionInput[]): Promise<void> {
  await withTransaction(pool, async (client) => {
    let last = await lockPipeline(client);
    // appendDecisions stamps one recorded_at per call: one call per distinct time, in order.
    for (let i = 0; i < ds.length; ) {
      let j = i + 1;
      while (j < ds.length && ds[j]!.recordedAt.getTime() === ds[i]!.recordedAt.getTime()) j++;
      const positions = await appendDecisions(client, last, ds.slice(i, j), ds[i]!.recordedAt);
      last = positions[positions.length - 1]!;
      i = j;
    }
  });
}
