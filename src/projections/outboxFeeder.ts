/**
 * The outbox feeder ('outbox'): turns Applied decisions into msg_event rows (decisionOutbox.ts) in
 * the same transaction that advances its own checkpoint. It keeps its own fold of every flight,
 * so a KAFKA_SCHD row carries the flight as of that decision even when the flight read model lags
 * or is being rebuilt. A rebuild never runs this projector: msg_event rows are deliveries, and
 * re-feeding would re-send.
 *
 * The fold follows the batch transaction (JournaledMap); when its position is not the checkpoint
 * the batch starts from (first batch, a lost commit, an operator reset), it is folded again from
 * the log. Inserts are idempotent per (source_position, target, seq).
 */
import type { FlightState } from '../domain/flight.ts';
import { applyDecision } from '../domain/evolve.ts';
import type { Clock } from '../platform/clock.ts';
import type { PoolClient } from '../platform/db.ts';
import { appliedEvent, hasChanges, type DecisionEvent } from '../log/readDecisions.ts';
import { foldLog } from '../log/foldLog.ts';
import { insertOutboxRows, notifyOutbox } from './insertOutbox.ts';
import { JournaledMap } from './journaledMap.ts';
import { NO_COUTMSGS_ROUTES, type CoutmsgsRoute } from './outboxRoutes.ts';
import { isSentKind, outboxRowsFor, type OutboxRow } from './decisionOutbox.ts';
import type { Projector } from './projector.ts';
import { OUTBOX_PROJECTOR } from '../readModel/projectorNames.ts';

export interface OutboxFeederOptions {
  clock: Clock;
  /** The airport zone (MSGX_AIRPORT_TZ): Kafka payload instants are shown in it, as the API shows them. */
  tz: string;
  /** COUTMSGS routes (none by default). */
  routes?: readonly CoutmsgsRoute[];
}

export interface OutboxFeeder extends Projector {
  /** The feeder's flight states (as of its last committed batch). */
  flights(): ReadonlyMap<string, FlightState>;
}

export function createOutboxFeeder(opts: OutboxFeederOptions): OutboxFeeder {
  const rules = { tz: opts.tz, routes: opts.routes ?? NO_COUTMSGS_ROUTES };
  const flights = new JournaledMap<string, FlightState>();
  /** The position `flights` reflects; undefined until folded. */
  let foldedTo: string | undefined;
  let applying: string | undefined;

  async function refold(client: PoolClient, to: string): Promise<void> {
    flights.clear();
    foldedTo = undefined;
    const reached = await foldLog(client, flights, '0', to);
    if (reached !== to) throw new Error(`outbox fold reached position ${reached}, expected ${to}`);
    foldedTo = to;
  }

  return {
    name: OUTBOX_PROJECTOR,
    flights: () => flights,
    async apply(client: PoolClient, events: readonly DecisionEvent[], from: string) {
      if (foldedTo !== from) await refold(client, from);
      flights.begin();
      const rows: OutboxRow[] = [];
      for (const e of events) {
        if (!hasChanges(e)) continue;
        const touched = applyDecision(flights, appliedEvent(e));
        if (isSentKind(e.kind)) rows.push(...outboxRowsFor(e, touched, flights, rules));
      }
      const added = await insertOutboxRows(client, rows, opts.clock.now());
      await notifyOutbox(client, added.keys());
      applying = events[events.length - 1]?.position ?? from;
    },
    committed() {
      flights.commit();
      foldedTo = applying;
    },
    rolledBack() {
      flights.rollback();
    },
  };
}
