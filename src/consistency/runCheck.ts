/**
 * One consistency check, all of it inside one REPEATABLE READ READ ONLY transaction: every read
 * sees the same snapshot (the rows and the checkpoint a projector commits together), and plain
 * reads take no lock the writer waits for. Nothing is written and nothing is repaired.
 *
 *   1. the checkpoints of the `flights` and `outbox` projectors, the log head;
 *   2. which flights (all, a sample, a day, named ones);
 *   3. fold the log up to the higher checkpoint with the domain's applyDecision (foldForCheck);
 *   4. flights: fold vs rows (flightCheck) and vs their documents (docCheck); outbox: implied vs present msg_event rows
 *      (outboxCheck); with --all, reference data vs its tables (referenceCheck); write-backs of
 *      terminal messages (writebackCheck: a sample looks at the newest WRITEBACK_SAMPLE of them);
 *   5. the newest write-model snapshot vs the log up to its position (the `snapshot` check handed in).
 * A sample check costs what its sample does, not what the history does (docs/operations.md).
 */
import type { Clock } from '../platform/clock.ts';
import type { Pool, Queryable } from '../platform/db.ts';
import type { AidxRules } from '../domain/aidxOut/aidxMessage.ts';
import type { CoutmsgsRoute } from '../projections/outboxRoutes.ts';
import { compareDocs, loadDocs } from './docCheck.ts';
import { compareFlights, loadRows } from './flightCheck.ts';
import { foldForCheck } from './foldForCheck.ts';
import { checkOutbox } from './outboxCheck.ts';
import { readFlightsLog, readWholeLog } from '../log/readForFlights.ts';
import type { CheckReport, Mismatch } from './report.ts';
import { checkReference } from './referenceCheck.ts';
import { checkWritebacks } from './writebackCheck.ts';
import { pushAll } from '../platform/arrays.ts';
import { logHead } from '../log/head.ts';

/** A check of less than every flight looks at the write-backs of this many newest terminal messages (per table). */
export const WRITEBACK_SAMPLE = 2000;

export type Selection =
  | { readonly kind: 'all' }
  /** A random `ratio` of the flights in the read model (of one operation day, if given). */
  | { readonly kind: 'sample'; readonly ratio: number; readonly day?: string }
  /** Every flight of one operation day in the read model. */
  | { readonly kind: 'day'; readonly day: string }
  | { readonly kind: 'flights'; readonly flids: readonly string[] };

export type CheckPhase = 'select' | 'fold' | 'flights' | 'outbox' | 'writebacks' | 'snapshot' | 'done';

export interface CheckProgress {
  readonly phase: CheckPhase;
  /** Position folded so far, and the position the fold goes to. */
  readonly position: string;
  readonly upTo: string;
  readonly events: number;
  readonly flights?: number;
}

export interface CheckOptions {
  readonly selection: Selection;
  readonly clock: Clock;
  /** Terminal messages younger than this are not checked for their write-back yet (default 60 s). */
  readonly writebackGraceMs?: number;
  /** The COUTMSGS routes the outbox feeder runs with (none by default, as in assemble.ts). */
  readonly routes?: readonly CoutmsgsRoute[];
  /** The AIDX target's rules the outbox feeder runs with (MSGX_AIDX_OUT; absent: off). */
  readonly aidx?: AidxRules;
  readonly onProgress?: (p: CheckProgress) => void;
  /** The write-model snapshot check (src/write/snapshot/checkSnapshot.ts, handed in by the composition root); absent: not checked. */
  readonly snapshot?: SnapshotCheck;
}

/** Checks the newest write-model snapshot against the log (whole, or a `ratio` of its flights). */
export type SnapshotCheck = (
  q: Queryable,
  head: string,
  opts: { readonly whole: boolean; readonly ratio: number },
) => Promise<{ readonly position: string | null; readonly flights: number; readonly mismatches: readonly Mismatch[] }>;

export const DEFAULT_WRITEBACK_GRACE_MS = 60_000;

interface Positions {
  log: string;
  flights: string;
  outbox: string;
  reference: string;
}

async function readPositions(q: Queryable): Promise<Positions> {
  const log = await logHead(q);
  const { rows } = await q.query<Omit<Positions, 'log'>>(
    `SELECT COALESCE((SELECT position::text FROM projection_checkpoint WHERE name = 'flights'), '0') AS flights,
            COALESCE((SELECT position::text FROM projection_checkpoint WHERE name = 'outbox'), '0') AS outbox,
            COALESCE((SELECT position::text FROM projection_checkpoint WHERE name = 'reference'), '0') AS reference`,
  );
  return { log, ...rows[0]! };
}

/** The flids a selection names (undefined: all flights, the log decides which exist). */
async function selectFlids(q: Queryable, s: Selection): Promise<string[] | undefined> {
  switch (s.kind) {
    case 'all':
      return undefined;
    case 'flights':
      return [...new Set(s.flids)];
    case 'day': {
      const { rows } = await q.query<{ flid: string }>('SELECT flid::text AS flid FROM flight_schd WHERE operation_day = $1::date', [s.day]);
      return rows.map((r) => r.flid);
    }
    case 'sample': {
      const { rows } = await q.query<{ flid: string }>(
        `WITH f AS (SELECT flid FROM flight_schd WHERE $2::date IS NULL OR operation_day = $2::date)
         SELECT flid::text AS flid FROM f ORDER BY random() LIMIT (SELECT ceil(count(*) * $1::float8) FROM f)`,
        [s.ratio, s.day ?? null],
      );
      return rows.map((r) => r.flid);
    }
  }
}

const scopeOf = (s: Selection): CheckReport['scope'] => (s.kind === 'flights' ? 'flights' : s.kind);

export async function runCheck(pool: Pool, opts: CheckOptions): Promise<CheckReport> {
  const started = opts.clock.now();
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // Short lookups, not analytics: compiling them (JIT) for each month's partition cost more than running them.
    await client.query('SET LOCAL jit = off');
    const positions = await readPositions(client);
    const whole = opts.selection.kind === 'all';
    // Reference data is checked with --all (its decisions name no flight).
    const tops = whole ? [positions.flights, positions.outbox, positions.reference] : [positions.flights, positions.outbox];
    const upTo = tops.reduce((a, b) => (BigInt(b) > BigInt(a) ? b : a));
    const progress = (phase: CheckPhase, position: string, events: number, flights?: number) =>
      opts.onProgress?.({ phase, position, upTo, events, ...(flights === undefined ? {} : { flights }) });

    progress('select', '0', 0);
    const flids = await selectFlids(client, opts.selection);
    const pages = flids === undefined ? readWholeLog(client, '0', upTo) : readFlightsLog(client, flids, '0', upTo);
    const fold = await foldForCheck(pages, positions, {
      whole: flids === undefined,
      ...(opts.routes ? { routes: opts.routes } : {}),
      ...(opts.aidx ? { aidx: opts.aidx } : {}),
      ...(whole ? { referenceAt: positions.reference } : {}),
      onPage: (position, events) => progress('fold', position, events),
    });

    progress('flights', upTo, fold.events, fold.flights.size);
    const rows = await loadRows(client, flids);
    const mismatches: Mismatch[] = compareFlights(fold.flights, rows);
    pushAll(mismatches, compareDocs(fold.flights, await loadDocs(client, flids)));
    const flightsChecked = new Set([...fold.flights.keys(), ...rows.keys()]).size;

    progress('outbox', upTo, fold.events, flightsChecked);
    pushAll(mismatches, await checkOutbox(client, fold.outbox, positions.outbox, flids));

    const reference = fold.reference === null ? null : await checkReference(client, fold.reference);
    if (reference) pushAll(mismatches, reference.mismatches);

    progress('writebacks', upTo, fold.events, flightsChecked);
    const grace = opts.writebackGraceMs ?? DEFAULT_WRITEBACK_GRACE_MS;
    const wb = await checkWritebacks(client, new Date(started.getTime() - grace), positions.log, whole ? undefined : WRITEBACK_SAMPLE);
    pushAll(mismatches, wb.mismatches);

    progress('snapshot', upTo, fold.events, flightsChecked);
    const ratio = opts.selection.kind === 'sample' ? opts.selection.ratio : 0;
    const snapshot = opts.snapshot ? await opts.snapshot(client, positions.log, { whole, ratio }) : { position: null, flights: 0, mismatches: [] };
    pushAll(mismatches, snapshot.mismatches);
    await client.query('COMMIT');
    progress('done', upTo, fold.events, flightsChecked);
    return {
      checkedAt: started.toISOString(),
      scope: scopeOf(opts.selection),
      positions,
      checked: {
        flights: flightsChecked, decisions: fold.outbox.positions.length, messages: wb.messages, reference: reference?.records ?? null,
        ...(snapshot.position === null ? {} : { snapshot: { position: snapshot.position, flights: snapshot.flights } }),
      },
      mismatches,
      seconds: (opts.clock.now().getTime() - started.getTime()) / 1000,
    };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
