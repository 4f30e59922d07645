/**
 * `msgx rebuild flights`: rebuild the flight projection from position 0 beside the live tables,
 * then swap it in atomically. Never touches msg_event (the outbox feeder is not rebuilt: its rows
 * are deliveries).
 *
 *   1. scratch tables in schema msgx_rebuild (clones of the live ones)
 *   2. replay: fold the log in memory with applyDecision (progress every ~1 s) — from position 0,
 *      or from a stored image of the flights at a position (`startFrom`: the newest write-model
 *      snapshot of this fold code, docs/projections.md "Rebuild from a snapshot") and the live
 *      schd_snap_log rows up to it
 *   3. write: every flight, in unnest batches — those the replay stopped touching already during it
 *      (writeBehind.ts), the rest after it (a full rebuild's fold workers write their own shard's,
 *      foldWorkers.ts); then the scratch tables' foreign keys, each checked once over its table;
 *      then catch up the tail the same way
 *   4. switch, one transaction: lock the 'flights' checkpoint row (the live projector pauses at
 *      its next batch), fold and write the last tail, swap the tables, set the checkpoint,
 *      NOTIFY msgx_projection and msgx_rebuilt
 * Until 4 commits the live tables are untouched and readers keep using them. Cancelling (signal)
 * before 4 drops the scratch tables. One rebuild at a time (advisory lock).
 */
import { CancelledError } from '../../platform/errors.ts';
import { pushAll } from '../../platform/arrays.ts';
import type { FlightState } from '../../domain/flight.ts';
import { FoldOwnership } from '../../domain/evolve.ts';
import type { Clock } from '../../platform/clock.ts';
import { SqlState, sqlState, type Pool, type PoolClient } from '../../platform/db.ts';
import type { Logger } from '../../platform/logger.ts';
import { ensureCheckpoint, lockCheckpoint } from '../checkpoint.ts';
import { logHead } from '../../log/head.ts';
import { emptyPending, flushPending, foldEvents, referencedFlids, type PendingWrites } from '../flightFold.ts';
import { loadFlights } from '../loadFlights.ts';
import { FLIGHTS_PROJECTOR } from '../../readModel/projectorNames.ts';
import { FLIGHT_PROJECTION_TABLES, LIVE_TABLES, flightTables } from '../../readModel/flightTables.ts';
import { JournaledMap } from '../journaledMap.ts';
import { Channels, notify } from '../../platform/channels.ts';
import { ProgressTracker, type ProgressSink, type RebuildPhase } from './progress.ts';
import { SCRATCH_SCHEMA, addScratchForeignKeys, createScratchTables, dropScratchTables, findSwapBlockers } from './scratchTables.ts';
import { swapTables } from './switchTables.ts';
import { WriteBehind } from './writeBehind.ts';
import { ScratchWrites } from './scratchWrites.ts';
import { readRebuildPage } from '../../log/rebuildPages.ts';
import type { DecisionEvent } from '../../log/readDecisions.ts';
import { foldInWorkers } from './foldWorkers.ts';
import { replayInWorker } from './replayInWorker.ts';
import type { ShardResult } from './shardFold.ts';

/** Advisory lock key held by the session of a running rebuild. */
const REBUILD_LOCK = 7_735_005;
const SCRATCH = flightTables(SCRATCH_SCHEMA);

export interface RebuildOptions {
  pool: Pool;
  clock: Clock;
  log: Logger;
  /** Abort before the switch: scratch tables are dropped, live tables stay as they are. */
  signal?: AbortSignal;
  onProgress?: ProgressSink;
  /** Events per read. */
  pageSize?: number;
  /** Flights per write statement set (default FLUSH_CHUNK). */
  flushChunk?: number;
  /**
   * Decisions after which a flight the replay has not touched again is written during the replay
   * (writeBehind.ts; default WRITE_BEHIND_AFTER).
   */
  writeBehindAfter?: number;
  /** How long the switch may wait for readers to let go of the live tables (per attempt). */
  lockTimeoutMs?: number;
  switchAttempts?: number;
  /**
   * Where the fold may start instead of position 0: the flights as the log folds them up to a
   * position (the composition root hands in the newest write-model snapshot of this fold code).
   * Undefined, or a port that finds none: the fold starts at 0.
   */
  startFrom?: () => Promise<RebuildStart | undefined>;
  /**
   * Worker threads that fold a replay from position 0, the flights split by flid (foldWorkers.ts);
   * default 0: this thread folds. On the 2-core machine of docs/benchmarks.md the workers cost ~50%
   * more node CPU than they save in wall time (figure 4, "what limits it now"); a machine with more
   * idle cores may gain from 2 or more.
   */
  foldWorkers?: number;
  /**
   * Where a replay from position 0 folds when no fold workers are asked for: 'this' (the default),
   * or 'worker': one worker thread, with a young generation large enough for the fold's garbage,
   * that also writes the flights on its own connections (replayInWorker.ts), so that a serving
   * process's own thread stays free. On the 2-core machine of docs/benchmarks.md the worker costs
   * ~0.7 node CPU-s more than it saves (figure 4, bench/results/history-2026-12.md), so a rebuild
   * that has the process to itself folds here.
   */
  replayThread?: 'worker' | 'this';
}

/**
 * Flights per write statement set. Smaller sets pipeline better (PostgreSQL starts on the first set
 * sooner, and the last one, which node waits for, is shorter) and leave less young garbage: the
 * week's rebuild from a snapshot wrote its 10,000 flights in 2.1–3.3 s against 2.9–3.7 s with 2,000.
 */
export const FLUSH_CHUNK = 500;

/** A flight untouched for this many decisions is written during the replay (writeBehind.ts). */
export const WRITE_BEHIND_AFTER = 20_000;

/** The flights `applyDecision` folds the log to, up to and including `position`. */
export interface RebuildStart {
  readonly position: string;
  readonly flights: ReadonlyMap<string, FlightState>;
}

export type RebuildResult =
  /** writtenBehind: flight writes during the replay (writeBehind.ts; a flight written twice counts twice). */
  | { ok: true; position: string; events: number; flights: number; seconds: number; from: string; writtenBehind: number }
  | { ok: false; reason: 'cancelled' | 'busy' }
  | { ok: false; reason: 'refused'; problems: readonly string[] };


export async function rebuildFlights(opts: RebuildOptions): Promise<RebuildResult> {
  const session = await opts.pool.connect();
  try {
    const { rows } = await session.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [REBUILD_LOCK]);
    if (!rows[0]?.locked) return { ok: false, reason: 'busy' };
    try {
      return await rebuildLocked(session, opts);
    } finally {
      await session.query('SELECT pg_advisory_unlock($1)', [REBUILD_LOCK]).catch(() => undefined);
    }
  } finally {
    session.release();
  }
}

async function inTransaction<T>(c: PoolClient, fn: () => Promise<T>): Promise<T> {
  await c.query('BEGIN');
  try {
    const out = await fn();
    await c.query('COMMIT');
    return out;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

async function rebuildLocked(session: PoolClient, opts: RebuildOptions): Promise<RebuildResult> {
  return withLanes(opts.pool, (lanes) => rebuildWith(session, lanes, opts));
}

async function rebuildWith(session: PoolClient, lanes: readonly PoolClient[], opts: RebuildOptions): Promise<RebuildResult> {
  const { clock, log, signal } = opts;
  const pageSize = opts.pageSize ?? 5000;
  const chunk = opts.flushChunk ?? FLUSH_CHUNK;
  const problems = await findSwapBlockers(session);
  if (problems.length > 0) return { ok: false, reason: 'refused', problems };

  const started = clock.now().getTime();
  const tracker = new ProgressTracker(clock, opts.onProgress);
  const fold = new JournaledMap<string, FlightState>();
  // Until the switch nobody but this fold reads its states (the writes behind only serialise them,
  // and a flight changed after its write is dirty again): the fold edits them in place. The switch
  // folds with copies, so its journal can restore the states before it.
  const own = new FoldOwnership();
  const pending = emptyPending();
  // Flights not yet in the scratch tables are copied in, others replaced (scratchWrites.ts).
  const scratch = new ScratchWrites();
  const flush = (q: PoolClient, more: readonly PoolClient[] = []) => flushPending(q, SCRATCH, fold, pending, chunk, more, undefined, 'all', scratch.write);
  const behind = new WriteBehind({ lanes, tables: SCRATCH, chunk, write: scratch.write, coldAfter: opts.writeBehindAfter ?? WRITE_BEHIND_AFTER, minFlights: Math.ceil(chunk / 4) });
  let position = '0';
  let events = 0;
  /** Flight writes during the replay by the replay worker (the in-thread ones are `behind`'s). */
  let writtenByWorker = 0;
  /**
   * After a replay on the worker thread `fold` starts empty: the flights the tail and the switch
   * change are read back from the scratch tables first (as the live projector reads the live
   * tables). `looked`: flids read back or found absent since (a flight archived meanwhile is not
   * read again).
   */
  let readBack: { readonly looked: Set<string>; readonly flights: number } | undefined;
  const flightCount = () => (readBack === undefined ? fold.size : Math.max(readBack.flights, fold.size));
  const readBackTouched = async (page: readonly DecisionEvent[]): Promise<void> => {
    if (readBack === undefined) return;
    const { looked } = readBack;
    const missing = referencedFlids(page).filter((flid) => !fold.has(flid) && !looked.has(flid));
    for (const flid of missing) looked.add(flid);
    for (const [flid, state] of await loadFlights(session, missing, SCRATCH)) fold.set(flid, state);
  };
  /** The position the fold started after: events and total count decisions after it. */
  let base = 0;
  let total = Number(await logHead(session));
  const report = (phase: RebuildPhase, force = false) =>
    tracker.report({ phase, events, total, position, flights: flightCount() }, force);
  const checkAbort = () => {
    if (signal?.aborted) throw new CancelledError('rebuild cancelled');
  };

  /**
   * Fold pages after `position` (src/log/rebuildPages.ts) until the log's end; returns how many events were read.
   * The next page is requested before the current one is folded, so PostgreSQL and the fold overlap.
   */
  const replay = async (phase: RebuildPhase): Promise<number> => {
    let read = 0;
    checkAbort();
    let next = readRebuildPage(session, position, pageSize);
    for (;;) {
      const { events: page, more } = await next;
      const last = page[page.length - 1];
      if (last === undefined) return read;
      await readBackTouched(page);
      if (more) next = readRebuildPage(session, last.position, pageSize);
      foldEvents(fold, page, pending, phase === 'switch' ? undefined : own);
      read += page.length;
      events += page.length;
      if (phase === 'replay') behind.folded(page, events, fold, pending);
      position = last.position;
      total = Math.max(total, Number(position) - base);
      report(phase);
      if (!more) return read;
      if (signal?.aborted) {
        await next.catch(() => undefined); // let the client finish the request it has in flight
        throw new CancelledError('rebuild cancelled');
      }
    }
  };

  /**
   * The replay from position 0 on worker threads (foldWorkers.ts), up to the head read at the start;
   * the workers write their flights, which then join `fold` (written: not dirty). False (nothing folded): a decision cannot be
   * sharded, fold in this thread.
   */
  const replayInWorkers = async (shards: number, databaseUrl: string): Promise<boolean> => {
    checkAbort();
    const upTo = await logHead(session);
    scratch.othersWrite();
    const out = await foldInWorkers({
      databaseUrl, shards, after: position, upTo, pageSize, schema: SCRATCH_SCHEMA, writeChunk: chunk, ...(signal ? { signal } : {}),
      onProgress: (n) => {
        events = n;
        report('replay');
      },
    });
    // The other shards may have written their flights already: the fold in one thread writes every
    // flight again (writeFlights replaces a flight's rows), so the scratch tables end the same.
    if ('unshardable' in out) {
      events = 0;
      log.warn({ position: out.unshardable }, 'rebuild: a decision changes a flight its flids column does not name; folding in one thread');
      return false;
    }
    joinShards(out.shards, fold, pending);
    position = upTo;
    return true;
  };

  /**
   * The replay from position 0 and the write of its flights on a worker thread (replayInWorker.ts),
   * to the log's end as the worker finds it; its flights then join `fold` (written: not dirty).
   */
  const replayOnWorkerThread = async (databaseUrl: string): Promise<void> => {
    checkAbort();
    scratch.othersWrite();
    let folded = 0;
    const done = await replayInWorker({
      databaseUrl, after: position, pageSize, schema: SCRATCH_SCHEMA, chunk, writeBehindAfter: opts.writeBehindAfter ?? WRITE_BEHIND_AFTER,
      lanes: lanes.length, ...(signal ? { signal } : {}),
      onPage: (p) => {
        ({ events, position } = p);
        total = Math.max(total, Number(position) - base);
        folded = p.flights;
        tracker.report({ phase: 'replay', events, total, position, flights: folded });
      },
      onWrite: () => tracker.report({ phase: 'write', events, total, position, flights: folded }, true),
    });
    ({ events, position } = done);
    writtenByWorker = done.writtenBehind;
    readBack = { looked: new Set(), flights: done.flights };
  };

  let start: RebuildStart | undefined;
  try {
    await ensureCheckpoint(session, FLIGHTS_PROJECTOR);
    const foreignKeys = await inTransaction(session, () => createScratchTables(session));
    // Scratch rows are disposable until the switch: no need to wait for WAL flushes.
    await session.query('SET synchronous_commit TO off');
    start = await opts.startFrom?.();
    if (start !== undefined) {
      // The image's days stay encoded until the write reads them (a LazyMap's chunks are shared,
      // not decoded): the write decodes a day's flights as it builds their chunk, beside
      // PostgreSQL copying the chunk before, instead of every day first.
      fold.copyFrom(start.flights);
      for (const flid of start.flights.keys()) pending.dirty.add(flid);
      position = start.position;
      base = Number(position);
      total -= base;
      // The plan-snapshot log is a list of decided facts up to `position`: the live rows are them.
      await session.query(`INSERT INTO ${SCRATCH.snapLog} SELECT * FROM ${LIVE_TABLES.snapLog} WHERE position <= $1::bigint`, [position]);
      log.info({ snapshot: position, flights: fold.size }, 'rebuild: starting from the write-model snapshot');
    }
    const shards = start !== undefined ? 0 : (opts.foldWorkers ?? 0);
    const databaseUrl = opts.pool.options.connectionString;
    log.info({ head: total, foldWorkers: shards }, 'rebuild: replaying the log');
    report('replay', true);
    const sharded = shards >= 2 && databaseUrl !== undefined && (await replayInWorkers(shards, databaseUrl));
    if (!sharded) {
      if (start === undefined && shards < 2 && databaseUrl !== undefined && opts.replayThread === 'worker') await replayOnWorkerThread(databaseUrl);
      else await replay('replay');
    }
    report('replay', true);

    await behind.drain();
    checkAbort();
    log.info({ flights: flightCount(), position, writtenBehind: behind.flightsWritten + writtenByWorker }, 'rebuild: writing scratch tables');
    report('write', true);
    await flush(session, lanes);
    await inTransaction(session, () => addScratchForeignKeys(session, foreignKeys));

    // Catch up with what was appended meanwhile, until a round finds less than a page.
    report('tail', true);
    while ((await replay('tail')) >= pageSize) await flush(session);
    await flush(session);
    await analyzeScratch([session, ...lanes]);
    await session.query('SET synchronous_commit TO DEFAULT');

    const attempts = opts.switchAttempts ?? 20;
    let flightsAtSwitch: number | undefined;
    for (let attempt = 1; ; attempt++) {
      checkAbort();
      report('switch', true);
      const before = { position, events };
      try {
        await inTransaction(session, async () => {
          fold.begin();
          await lockCheckpoint(session, FLIGHTS_PROJECTOR); // the live projector waits from here on
          await replay('switch');
          await flush(session);
          // The flights are in the scratch table, not all in `fold`.
          if (readBack !== undefined) flightsAtSwitch = await countFlights(session);
          await swapTables(session, opts.lockTimeoutMs ?? 1000);
          await session.query('UPDATE projection_checkpoint SET position = $2::bigint, updated_at = $3 WHERE name = $1', [
            FLIGHTS_PROJECTOR, position, clock.now(),
          ]);
          await notify(session, Channels.projection, `${FLIGHTS_PROJECTOR}:${position}`);
          await notify(session, Channels.rebuilt, FLIGHTS_PROJECTOR);
        });
        fold.commit();
        break;
      } catch (err) {
        fold.rollback();
        reset(pending);
        // The flights read back in the switch were rolled back with it: read them again.
        readBack?.looked.clear();
        ({ position, events } = before);
        if (sqlState(err) !== SqlState.lockNotAvailable || attempt >= attempts) throw err;
        log.warn({ attempt }, 'rebuild: readers held the live tables too long; retrying the switch');
        await clock.sleep(100 * attempt, signal);
      }
    }
    report('done', true);
    const seconds = (clock.now().getTime() - started) / 1000;
    const flights = flightsAtSwitch ?? fold.size;
    log.info({ position, events, flights, seconds }, 'rebuild: switched to the rebuilt tables');
    return {
      ok: true, position, events, flights, seconds, from: start === undefined ? 'position 0' : `snapshot at ${start.position}`,
      writtenBehind: behind.flightsWritten + writtenByWorker,
    };
  } catch (err) {
    await behind.drain().catch(() => undefined); // no write behind may still hold the scratch tables
    await session.query('ROLLBACK').catch(() => undefined);
    await dropScratchTables(session).catch((e: unknown) => log.warn({ err: e }, 'rebuild: could not drop scratch tables'));
    if (err instanceof CancelledError) {
      log.info({ position }, 'rebuild: cancelled; live tables untouched');
      return { ok: false, reason: 'cancelled' };
    }
    throw err;
  } finally {
    await session.query('RESET synchronous_commit').catch(() => undefined);
  }
}

/** Extra connections for writing the scratch tables: as many as the pool gives at once, at most this many. */
const WRITE_LANES = 2;

/**
 * Run `write` with up to WRITE_LANES further connections of `pool` (fewer when the pool has none
 * free right now: a rebuild never waits for connections the live services need).
 */
async function withLanes<T>(pool: Pool, write: (lanes: PoolClient[]) => Promise<T>): Promise<T> {
  const lanes: PoolClient[] = [];
  try {
    while (lanes.length < WRITE_LANES && pool.idleCount + (pool.options.max ?? 10) - pool.totalCount > 0) {
      const c = await pool.connect();
      await c.query('SET synchronous_commit TO off');
      lanes.push(c);
    }
    return await write(lanes);
  } finally {
    for (const c of lanes) {
      await c.query('RESET synchronous_commit').catch(() => undefined);
      c.release();
    }
  }
}

/** The shards' flights (written by their workers) into `fold`; their plan-snapshot rows, to be written, in position order. */
function joinShards(shards: readonly ShardResult[], fold: Map<string, FlightState>, pending: PendingWrites): void {
  for (const shard of shards) {
    for (const f of shard.flights) fold.set(f.flid, f);
    pushAll(pending.snapshots, shard.snapshots);
  }
  pending.snapshots.sort((a, b) => (BigInt(a.position) < BigInt(b.position) ? -1 : BigInt(a.position) > BigInt(b.position) ? 1 : 0));
}

/**
 * ANALYZE every scratch table (the swapped-in tables plan with their statistics from the start),
 * the tables shared out among the connections: PostgreSQL analyzes them side by side (~0.5 s for
 * the week's tables on one connection, flight_schd's 28 MB of documents most of it) while this
 * thread has nothing to do. Each connection is idle when this returns, failed or not.
 */
async function analyzeScratch(connections: readonly PoolClient[]): Promise<void> {
  const queue: string[] = [...FLIGHT_PROJECTION_TABLES];
  const ends = await Promise.allSettled(
    connections.map(async (c) => {
      for (let t = queue.shift(); t !== undefined; t = queue.shift()) await c.query(`ANALYZE ${SCRATCH_SCHEMA}.${t}`);
    }),
  );
  const failed = ends.find((e) => e.status === 'rejected');
  if (failed) throw failed.reason;
}

async function countFlights(q: PoolClient): Promise<number> {
  const { rows } = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${SCRATCH.flight}`);
  return rows[0]?.n ?? 0;
}

function reset(p: PendingWrites): void {
  p.dirty.clear();
  p.snapshots.length = 0;
}
