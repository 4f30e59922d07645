import type { RetryOptions } from 'kafkajs';
import type pg from 'pg';
import { FakeClock } from '../../../src/platform/clock.ts';
import { loadConfig, type Config } from '../../../src/platform/config.ts';
import { silentLogger } from '../../../src/platform/logger.ts';
import type { Mailbox } from '../../../src/platform/mailbox/port.ts';
import { createDispatcher, type Dispatcher } from '../../../src/write/delivery/dispatcher.ts';
import type { KafkaSink } from '../../../src/write/delivery/kafkaSink.ts';
import { createKafkajsSink } from '../../../src/write/delivery/kafkajsSink.ts';
import type { Target } from '../../../src/write/delivery/targets.ts';
import type { KafkaTestBroker } from '../../support/kafka/broker.ts';

/** Fast, bounded kafkajs retries so an outage turns into failed sends within a few hundred ms. */
export const FAST_RETRY: RetryOptions = { retries: 1, initialRetryTime: 30, maxRetryTime: 100 };

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    MSGX_DATABASE_URL: 'postgres://unused@127.0.0.1:5432/unused',
    MSGX_MAX_ATTEMPTS: '3',
    MSGX_BACKOFF_MS: '1000,2000,4000',
    MSGX_BACKOFF_CAP_MS: '4000',
    MSGX_SCHD_FLUSH_MS: '3000',
    MSGX_SCHD_FLUSH_LIMIT: '500',
    MSGX_COUTMSGS_ROUTINGID: 'ROUTE-T',
    ...env,
  });
}

export function brokerSink(broker: KafkaTestBroker): KafkaSink {
  return createKafkajsSink({
    brokers: broker.brokers,
    clientId: 'msgx-test',
    log: silentLogger,
    retry: FAST_RETRY,
    producer: { retry: FAST_RETRY },
    connectionTimeoutMs: 500,
    requestTimeoutMs: 2000,
  });
}

export interface OutboxRowInput {
  readonly target: Target;
  readonly flid?: string | null;
  readonly payload: unknown;
  readonly msgId?: string | null;
  readonly headers?: Record<string, unknown>;
}

/**
 * Plays the outbox projector: inserts msg_event rows (each its own source position) and sends
 * NOTIFY msgx_outbox per target, in one transaction. Returns the event ids in insertion order.
 */
/** Before each delivery test: no outbox rows, no outbound mail, a clock at `at` and a writer on it. */
export async function emptyOutbox(pool: pg.Pool, at: string): Promise<{ clock: FakeClock; out: OutboxWriter }> {
  await pool.query('DELETE FROM msg_event');
  await pool.query('DELETE FROM mailbox.coutmsgs');
  const clock = new FakeClock(at);
  return { clock, out: new OutboxWriter(pool, clock) };
}

export class OutboxWriter {
  private position = 0;
  constructor(private readonly pool: pg.Pool, private readonly clock: FakeClock) {}

  async insert(rows: readonly OutboxRowInput[], opts: { notify?: boolean } = {}): Promise<string[]> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const ids: string[] = [];
      for (const r of rows) {
        this.position += 1;
        const { rows: out } = await client.query<{ id: string }>(
          `INSERT INTO msg_event (target, source_position, seq, msg_id, flid, payload, headers, created_at)
           VALUES ($1, $2, 0, $3, $4, $5::jsonb, $6::jsonb, $7) RETURNING event_id AS id`,
          [r.target, this.position, r.msgId ?? null, r.flid ?? null, JSON.stringify(r.payload), JSON.stringify(r.headers ?? {}), this.clock.now()],
        );
        ids.push(out[0]!.id);
      }
      if (opts.notify ?? true) {
        for (const t of new Set(rows.map((r) => r.target))) await client.query('SELECT pg_notify($1, $2)', ['msgx_outbox', t]);
      }
      await client.query('COMMIT');
      return ids;
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    } finally {
      client.release();
    }
  }

  /** A KAFKA_MSG row as the outbox projector writes it. */
  msg(flid: string, msgId: string, change: Record<string, unknown>): OutboxRowInput {
    return {
      target: 'KAFKA_MSG',
      flid,
      msgId,
      payload: { type: change.type, flid, position: String(this.position + 1), msgId, recordedAt: this.clock.now().toISOString(), change },
      headers: { msgId, position: String(this.position + 1) },
    };
  }
}

export interface DeliveryRowState {
  eventId: string;
  state: string;
  attempts: number;
  lastError: string | null;
  deliveryRef: Record<string, unknown> | null;
  nextAttemptAt: Date | null;
}

export async function rowStates(pool: pg.Pool, target: Target): Promise<DeliveryRowState[]> {
  const { rows } = await pool.query<DeliveryRowState>(
    `SELECT event_id AS "eventId", state, attempts, last_error AS "lastError", delivery_ref AS "deliveryRef",
            next_attempt_at AS "nextAttemptAt"
       FROM msg_event WHERE target = $1 ORDER BY event_id`,
    [target],
  );
  return rows;
}

export function startDispatcher(opts: {
  pool: pg.Pool;
  url: string;
  mailbox: Mailbox;
  sink: KafkaSink;
  clock: FakeClock;
  cfg: Config;
  msgBatchMax?: number;
}): Promise<Dispatcher> {
  const d = createDispatcher({
    pool: opts.pool,
    databaseUrl: opts.url,
    mailbox: opts.mailbox,
    sink: opts.sink,
    clock: opts.clock,
    cfg: opts.cfg,
    log: silentLogger,
    ...(opts.msgBatchMax !== undefined ? { msgBatchMax: opts.msgBatchMax } : {}),
  });
  return d.start().then(() => d);
}
