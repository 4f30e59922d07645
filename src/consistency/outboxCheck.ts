/**
 * Outbox check: the msg_event rows the folded decisions imply, against the rows that are there.
 *
 * Implied rows are the feeder's own: for each decision it sends (`isSentKind`), the pieces
 * `outboxRowsFor` is built of give the KAFKA_MSG rows (`sentChanges`) and the COUTMSGS rows
 * (`coutmsgsOutputs`, with the flights as folded after that decision) — one definition of which
 * changes are sent; no payload is rendered (only keys are compared). The KAFKA_SCHD rows are its
 * rule written out here: one per touched flight that still exists, in touched order (a unit test
 * holds all three to the feeder's rows for a whole log).
 * Checking all flights, rows are compared by (target, position, seq, flid). Checking some flights,
 * the fold and the changes are those flights' only, so the `seq` of a row (its place among all
 * rows of the decision for that target) is not known: rows are compared by (target, position,
 * flid), counting repeats.
 * AIDX rows (MSGX_AIDX_OUT, docs/delivery.md "AIDX"): one per touched flight that still exists and
 * whose leg can be named (`aidxLeg`, the very test the feeder's `aidxMessage` starts with), in
 * touched order.
 */
import type { FlightState } from '../domain/flight.ts';
import type { Queryable } from '../platform/db.ts';
import type { CoutmsgsRoute } from '../projections/outboxRoutes.ts';
import { aidxLeg, type AidxRules } from '../domain/aidxOut/aidxMessage.ts';
import { coutmsgsOutputs, changeFlid, isSentKind, sentChanges } from '../projections/decisionOutbox.ts';
import type { LogEvent } from '../log/readForFlights.ts';
import type { Mismatch } from './report.ts';
import { decisionKinds } from '../log/findDecisions.ts';


const key = (target: string, position: string, seq: number | null, flid: string | null) =>
  `${target}|${position}|${seq ?? '*'}|${flid ?? ''}`;

export class OutboxExpectation {
  /** Implied rows by key, with how many of each. */
  readonly rows = new Map<string, number>();
  /** Positions of the sent decisions checked. */
  readonly positions: string[] = [];
  /**
   * @param whole the events folded are whole decisions (rows compared with their seq), not the
   *   changes of some flights
   */
  constructor(
    private readonly whole: boolean,
    private readonly routes: readonly CoutmsgsRoute[] = [],
    private readonly aidx?: AidxRules,
  ) {}

  expect(e: LogEvent, touched: ReadonlySet<string>, flights: ReadonlyMap<string, FlightState>): void {
    if (!isSentKind(e.kind)) return;
    if (this.whole && e.indices !== null) throw new Error('outbox check: a filtered event in a check of whole decisions');
    this.positions.push(e.position);
    const event = { position: e.position, msgId: e.msgId, kind: e.kind, changes: e.changes, recordedAt: e.recordedAt };
    const changes = sentChanges(event);
    changes.forEach((c, seq) => this.add('KAFKA_MSG', seq, changeFlid(c), e.position));
    coutmsgsOutputs(event, changes, flights, this.routes).forEach((o, seq) => this.add('COUTMSGS', seq, o.flid, e.position));
    let seq = 0;
    for (const flid of touched) if (flights.has(flid)) this.add('KAFKA_SCHD', seq++, flid, e.position);
    if (this.aidx) {
      let k = 0;
      for (const flid of touched) {
        const state = flights.get(flid);
        if (state && typeof aidxLeg(state, this.aidx.airport) !== 'string') this.add('AIDX', k++, flid, e.position);
      }
    }
  }

  private add(target: string, seq: number, flid: string | null, position: string): void {
    const k = key(target, position, this.whole ? seq : null, flid);
    this.rows.set(k, (this.rows.get(k) ?? 0) + 1);
  }

  /** The key a present row is counted under. */
  keyOf(target: string, position: string, seq: number, flid: string | null): string {
    return key(target, position, this.whole ? seq : null, flid);
  }
}

interface OutboxKeyRow {
  target: string;
  source_position: string;
  seq: number;
  flid: string | null;
}

/**
 * Compare (consumes `expected.rows`). `flids` undefined: every msg_event row (a row no decision
 * implies is an orphan); otherwise only the rows of the checked decisions for those flights.
 */
export async function checkOutbox(
  q: Queryable,
  expected: OutboxExpectation,
  outboxAt: string,
  flids: readonly string[] | undefined,
): Promise<Mismatch[]> {
  const left = expected.rows; // consumed: what is left at the end is missing
  const orphans: OutboxKeyRow[] = [];
  const take = (k: string, r: () => OutboxKeyRow) => {
    const n = left.get(k);
    if (n === undefined) orphans.push(r());
    else if (n === 1) left.delete(k);
    else left.set(k, n - 1);
  };
  if (flids === undefined) {
    // Every row: the key built by the server (one text column per row, nothing to assemble here).
    const { rows } = await q.query<{ k: string }>(
      `SELECT target || '|' || source_position || '|' || seq || '|' || coalesce(flid, '') AS k FROM msg_event`,
    );
    for (const { k } of rows) {
      take(k, () => {
        const [target, position, seq, flid] = k.split('|') as [string, string, string, string];
        return { target, source_position: position, seq: Number(seq), flid: flid === '' ? null : flid };
      });
    }
  } else {
    const { rows } = await q.query<OutboxKeyRow>(
      'SELECT target, source_position, seq, flid FROM msg_event WHERE source_position = ANY($1::bigint[]) AND flid = ANY($2::text[])',
      [expected.positions, flids],
    );
    for (const r of rows) take(expected.keyOf(r.target, r.source_position, r.seq, r.flid), () => r);
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
