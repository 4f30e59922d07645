/**
 * Seeding the decision log in tests through the pump's own append (src/log/appendDecisions.ts):
 * take pipeline_lock FOR UPDATE, hand out the next gap-free positions, insert, NOTIFY msgx_decision.
 * Tests write decision_event directly only where they need what the append never does (a row
 * without NOTIFY, a reader role's refused INSERT), and say so there.
 */
import type { Change } from '../../src/domain/changes.ts';
import { decisionBody } from '../../src/domain/decisionPayload.ts';
import { appendDecisions, lockPipeline, type DecisionKind, type NewDecision } from '../../src/log/appendDecisions.ts';
import { withTransaction, type Pool, type PoolClient } from '../../src/platform/db.ts';

/** A decision as the test log generators produce it. */
export interface DecisionInput {
  msgId: string | null;
  kind: DecisionKind;
  handler?: string | null;
  handlerVersion?: number | null;
  flids?: readonly string[];
  payload: Record<string, unknown> & { changes?: readonly Change[] };
  recordedAt: Date;
}

/** What the seeding functions take: a DecisionInput, or a fixture's shorthand of one. */
export interface SeedDecision extends Omit<DecisionInput, 'msgId' | 'kind' | 'recordedAt'> {
  /** The position the fixture expects the append to hand out (checked, so fixtures that name positions stay true). */
  readonly position?: string;
  readonly msgId?: string | null;
  /** Default Applied. */
  readonly kind?: DecisionKind;
  readonly recordedAt: Date | string;
}

const at = (d: SeedDecision): Date => (typeof d.recordedAt === 'string' ? new Date(d.recordedAt) : d.recordedAt);

/** A fixture's decision as the append takes it: its payload checked by the log's own boundary (decisionBody). */
export const toNewDecision = (d: SeedDecision): NewDecision => ({
  msgId: d.msgId ?? null,
  handler: d.handler ?? null,
  handlerVersion: d.handlerVersion ?? null,
  flids: d.flids ?? [],
  ...decisionBody(d.position ?? '(seeded)', d.kind ?? 'Applied', d.payload),
});

/** Append `ds` inside an open transaction of `client` (caller commits), in order; returns their positions. */
export async function appendAllWith(client: PoolClient, ds: readonly SeedDecision[]): Promise<string[]> {
  let last = await lockPipeline(client);
  const out: string[] = [];
  // appendDecisions stamps one recorded_at per call: one call per run of equal times, in order.
  for (let i = 0; i < ds.length; ) {
    let j = i + 1;
    while (j < ds.length && at(ds[j]!).getTime() === at(ds[i]!).getTime()) j++;
    const run = ds.slice(i, j);
    const positions = await appendDecisions(client, last, run.map(toNewDecision), at(ds[i]!));
    run.forEach((d, k) => {
      if (d.position !== undefined && d.position !== positions[k]) {
        throw new Error(`fixture expects position ${d.position}, the append handed out ${positions[k]}`);
      }
    });
    out.push(...positions);
    last = positions[positions.length - 1]!;
    i = j;
  }
  return out;
}

/** Append inside an open transaction of `client` (caller commits); returns the position. */
export async function appendWith(client: PoolClient, d: SeedDecision): Promise<string> {
  return (await appendAllWith(client, [d]))[0]!;
}

/** One decision in its own transaction; returns its position. */
export function appendDecision(pool: Pool, d: SeedDecision): Promise<string> {
  return withTransaction(pool, (client) => appendWith(client, d));
}

/** Each decision in its own transaction (as the pump commits them); returns the positions. */
export async function appendAll(pool: Pool, ds: readonly SeedDecision[]): Promise<string[]> {
  const out: string[] = [];
  for (const d of ds) out.push(await appendDecision(pool, d));
  return out;
}

/** Many decisions in one transaction (consecutive positions): fast test setup. Returns the positions. */
export function appendBatch(pool: Pool, ds: readonly SeedDecision[]): Promise<string[]> {
  return withTransaction(pool, (client) => appendAllWith(client, ds));
}
