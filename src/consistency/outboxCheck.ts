/**
 * Outbox check: the msg_event rows the folded decisions imply, against the rows that are there.
 *
 * Implied rows follow the feeder's rule (src/projections/outboxRows.ts; a unit test holds the two
 * to the same rows for a whole log): for each sent decision (`isSentKind`) one KAFKA_MSG row per
 * change, numbered by the change's place in the decision; one KAFKA_SCHD row per flight the
 * decision touched that still exists; one COUTMSGS row per change a configured route accepts.
 * KAFKA_SCHD and COUTMSGS rows are compared by decision and flight (their `seq` counts rows of the
 * whole decision, which a check of some flights does not see).
 */
import type { FlightState } from '../domain/flight.ts';
import type { Queryable } from '../platform/db.ts';
import type { CoutmsgsRoute } from '../projections/outboxRoutes.ts';
import { changeFlid, isSentKind } from '../projections/outboxRows.ts';
import type { LogEvent } from './readLog.ts';
import type { Mismatch } from './report.ts';

const key = (target: string, position: string, seq: number | null, flid: string | null) =>
  `${target}|${position}|${seq ?? '*'}|${flid ?? ''}`;

/** The rows' key: KAFKA_MSG with its seq, the others without. */
const rowKey = (target: string, position: string, seq: number, flid: string | null) =>
  key(target, position, target === 'KAFKA_MSG' ? seq : null, flid);

export class OutboxExpectation {
  /** Implied rows by key, with how many of each (COUTMSGS may repeat per decision and flight). */
  readonly rows = new Map<string, number>();
  /** Positions of the sent decisions checked. */
  readonly positions: string[] = [];

  constructor(private readonly routes: readonly CoutmsgsRoute[] = []) {}

  expect(e: LogEvent, touched: ReadonlySet<string>, flights: ReadonlyMap<string, FlightState>): void {
    if (!isSentKind(e.kind)) return;
    this.positions.push(e.position);
    e.changes.forEach((change, i) => {
      this.add(key('KAFKA_MSG', e.position, e.indices?.[i] ?? i, changeFlid(change)));
    });
    for (const flid of touched) if (flights.has(flid)) this.add(key('KAFKA_SCHD', e.position, null, flid));
    if (this.routes.length === 0) return;
    const event = { position: e.position, msgId: e.msgId, kind: e.kind, changes: e.changes, recordedAt: e.recordedAt };
    for (const change of e.changes) {
      const flid = changeFlid(change);
      const flight = flid === null ? undefined : flights.get(flid);
      for (const route of this.routes) if (route({ event, change, flight })) this.add(key('COUTMSGS', e.position, null, flid));
    }
  }

  private add(k: string): void {
    this.rows.set(k, (this.rows.get(k) ?? 0) + 1);
  }
}

interface OutboxKeyRow {
  target: string;
  source_position: string;
  seq: number;
  flid: string | null;
}

/**
 * Compare. `flids` undefined: every msg_event row (a row no decision implies is an orphan);
 * otherwise only the rows of the checked decisions for those flights.
 */
export async function checkOutbox(
  q: Queryable,
  expected: OutboxExpectation,
  outboxAt: string,
  flids: readonly string[] | undefined,
): Promise<Mismatch[]> {
  const { rows } = flids === undefined
    ? await q.query<OutboxKeyRow>('SELECT target, source_position, seq, flid FROM msg_event')
    : await q.query<OutboxKeyRow>(
        'SELECT target, source_position, seq, flid FROM msg_event WHERE source_position = ANY($1::bigint[]) AND flid = ANY($2::text[])',
        [expected.positions, flids],
      );
  const left = new Map(expected.rows);
  const orphans: OutboxKeyRow[] = [];
  for (const r of rows) {
    const k = rowKey(r.target, r.source_position, r.seq, r.flid);
    const n = left.get(k);
    if (n === undefined) orphans.push(r);
    else if (n === 1) left.delete(k);
    else left.set(k, n - 1);
  }
  const out: Mismatch[] = [];
  for (const [k, n] of left) {
    const [target, position, seq, flid] = k.split('|') as [string, string, string, string];
    for (let i = 0; i < n; i++) {
      out.push({ check: 'outbox', problem: 'missing', position, target, seq: seq === '*' ? null : Number(seq), flid: flid === '' ? null : flid });
    }
  }
  if (orphans.length > 0) {
    const kinds = await decisionKinds(q, [...new Set(orphans.map((o) => o.source_position))]);
    const limit = BigInt(outboxAt);
    for (const o of orphans) {
      const kind = kinds.get(o.source_position);
      out.push({
        check: 'outbox', problem: 'orphan', position: o.source_position, target: o.target, seq: o.seq, flid: o.flid,
        decision: kind === undefined ? 'none' : BigInt(o.source_position) > limit ? `${kind}, after the outbox checkpoint` : kind,
      });
    }
  }
  return out.sort((a, b) => (a.check === 'outbox' && b.check === 'outbox' ? Number(BigInt(a.position) - BigInt(b.position)) : 0));
}

async function decisionKinds(q: Queryable, positions: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await q.query<{ position: string; kind: string }>(
    'SELECT position, kind FROM decision_event WHERE position = ANY($1::bigint[])',
    [positions],
  );
  return new Map(rows.map((r) => [r.position, r.kind]));
}
