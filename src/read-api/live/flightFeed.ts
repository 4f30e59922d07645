/**
 * Live flight changes for `Subscription.flightChanged`. One LISTEN connection per process (not per
 * subscriber): the flight projector NOTIFYs `msgx_projection` with `flights:<position>` inside the
 * transaction that writes its rows, so the notification arrives only after those rows are visible.
 * The feed then reads the decisions in (last, position], reads the touched flights' current rows
 * and publishes one event per (decision, flight). After a lost connection it reconnects and
 * catches up from the flight projector's checkpoint, so no committed change is skipped.
 */
import type pg from 'pg';
import type { Clock } from '../../platform/clock.ts';
import type { Queryable } from '../../platform/db.ts';
import { createListener } from '../../platform/listen.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Service } from '../../platform/service.ts';
import type { FlightState } from '../../domain/flight.ts';
import { Channels } from '../../platform/channels.ts';
import { FLIGHTS_PROJECTOR } from '../../readModel/projectorNames.ts';
import { selectFlightsByFlid } from '../sql/selectBoard.ts';
import { readDecisionsAfter } from '../../log/readDecisions.ts';
import { createFanOut } from './fanOut.ts';
import { touchedFlights } from './touchedFlights.ts';

/** Decisions read per statement while catching up. */
const CHUNK = 500;

export interface FlightChangeEvent {
  readonly flid: string;
  readonly position: string;
  readonly type: string;
  /** The flight's row after the projector's commit; null when it is gone (archived). */
  readonly flight: FlightState | null;
}

export interface FlightChangeFilter {
  readonly flid?: string | null;
  readonly operationDay?: string | null;
}

export interface FlightFeed extends Service {
  subscribe(f: FlightChangeFilter): AsyncIterable<FlightChangeEvent>;
  /** Last projector position the feed has published up to (tests, readiness). */
  position(): string;
  listening(): boolean;
  subscribers(): number;
  /** The pool the feed reads from: event lists must come from the same database as its rows. */
  readonly db: pg.Pool;
}

export interface FlightFeedOptions {
  readonly pool: pg.Pool;
  /**
   * The replica the subscribers read from (MSGX_READ_DATABASE_URL), if any: a position is published
   * only once the replica's flights checkpoint has reached it (docs/read-api.md "Live updates"), waiting
   * at most `waitMs` at a time; past that the position stays unannounced and the wait starts again.
   */
  readonly replica?: { readonly db: Queryable; readonly waitMs: number; readonly pollMs?: number };
  readonly clock: Clock;
  readonly log: Logger;
  /** Reconnect delay of the LISTEN connection (default LISTEN_RETRY_MS). */
  readonly reconnectMs?: number;
}

export function createFlightFeed(opts: FlightFeedOptions): FlightFeed {
  const fanOut = createFanOut<FlightChangeEvent>();
  let last = 0n;
  let target = 0n;
  let running: Promise<void> | null = null;
  let stopped = false;

  async function checkpoint(): Promise<bigint> {
    const { rows } = await opts.pool.query<{ position: string }>(
      'SELECT position::text AS position FROM projection_checkpoint WHERE name = $1',
      [FLIGHTS_PROJECTOR],
    );
    return BigInt(rows[0]?.position ?? '0');
  }

  /** Whether the replica shows the flights projection up to `to` (waits at most replica.waitMs); true without a replica. */
  let waitingLogged = false;
  async function replicaHas(to: bigint): Promise<boolean> {
    const r = opts.replica;
    if (!r) return true;
    const deadline = opts.clock.now().getTime() + r.waitMs;
    for (;;) {
      const { rows } = await r.db.query<{ position: string }>(
        'SELECT position::text AS position FROM projection_checkpoint WHERE name = $1',
        [FLIGHTS_PROJECTOR],
      );
      if (BigInt(rows[0]?.position ?? '0') >= to) {
        waitingLogged = false;
        return true;
      }
      if (!waitingLogged) {
        waitingLogged = true;
        opts.log.info({ position: to.toString() }, 'flight feed: waiting for the replica to replay the position before announcing it');
      }
      if (stopped || opts.clock.now().getTime() >= deadline) return false;
      await opts.clock.sleep(r.pollMs ?? 20);
    }
  }

  async function publishUpTo(): Promise<void> {
    while (last < target && !stopped) {
      const to = target - last > BigInt(CHUNK) ? last + BigInt(CHUNK) : target;
      if (fanOut.size() > 0) {
        if (!(await replicaHas(to))) return; // not announced yet: advance() starts another bounded wait
        // Positions are gap-free, so (last, to] is exactly the next `to − last` decisions.
        const decisions = await readDecisionsAfter(opts.pool, last.toString(), Number(to - last));
        const touched = decisions.flatMap(touchedFlights);
        const rows = touched.length > 0 ? await selectFlightsByFlid(opts.pool, [...new Set(touched.map((t) => t.flid))]) : new Map();
        for (const t of touched) fanOut.publish({ ...t, flight: rows.get(t.flid) ?? null });
      }
      last = to;
    }
  }

  function advance(to: bigint): void {
    if (to > target) target = to;
    running ??= publishUpTo()
      .catch((err: unknown) => opts.log.error({ err }, 'flight feed: publishing failed; catching up after the next notification'))
      .finally(() => {
        running = null;
        if (last < target && !stopped) advance(target);
      });
  }

  /**
   * Any session of the database can NOTIFY (PostgreSQL has no privilege for the command), so a
   * payload is only a hint: the feed advances to the flight projector's checkpoint as the log has
   * it, never beyond. A forged `flights:999999999` is ignored; a flood of them costs one checkpoint
   * read at a time (coalesced), not a read per notification.
   */
  let verifying = false;
  let verifyAgain = false;
  let forgedLogged = false;
  function onNotification(payload: string): void {
    const m = /^([^:]+):(\d{1,19})$/.exec(payload);
    if (!m || m[1] !== FLIGHTS_PROJECTOR) return;
    const claimed = BigInt(m[2]!);
    if (claimed <= target) return;
    if (verifying) {
      verifyAgain = true;
      return;
    }
    verifying = true;
    void checkpoint()
      .then((at) => {
        if (claimed > at && !forgedLogged) {
          forgedLogged = true;
          opts.log.info({ claimed: claimed.toString(), checkpoint: at.toString() }, 'flight feed: a notification named a position the log does not have; ignored');
        }
        advance(at);
      })
      .catch((err: unknown) => opts.log.debug({ err }, 'flight feed: checkpoint read failed'))
      .finally(() => {
        verifying = false;
        if (verifyAgain) {
          verifyAgain = false;
          onNotification(`${FLIGHTS_PROJECTOR}:${(target + 1n).toString()}`);
        }
      });
  }

  const listener = createListener({
    name: 'flight feed',
    source: { pool: opts.pool },
    channels: [Channels.projection],
    onNotify: (_channel, payload) => onNotification(payload),
    // Anything committed before LISTEN took effect is caught up from the checkpoint.
    async onListening() {
      const at = await checkpoint();
      if (last === 0n && target === 0n) last = target = at;
      else advance(at);
    },
    meanwhile:
      'subscriptions get no live changes until it is back (a hot standby cannot LISTEN: point MSGX_READ_DATABASE_URL at the primary for subscriptions)',
    clock: opts.clock,
    log: opts.log,
    retryMs: opts.reconnectMs,
  });

  return {
    name: 'flight-feed',
    db: opts.pool,
    position: () => last.toString(),
    listening: () => listener.listening(),
    // Queries must not depend on live updates: a failed LISTEN is retried in the background.
    start: () => listener.start(),
    async stop() {
      if (stopped) return;
      stopped = true;
      await listener.stop();
      await running;
      fanOut.closeAll();
    },
    subscribe(f) {
      return fanOut.subscribe(
        (e) => (f.flid == null || e.flid === f.flid) && (f.operationDay == null || e.flight?.operationDay === f.operationDay),
      );
    },
    subscribers: () => fanOut.size(),
  };
}
