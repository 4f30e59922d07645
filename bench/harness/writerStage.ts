/**
 * A writer under test for the plan figures: fresh MariaDB and PostgreSQL databases, the in-process
 * Kafka broker, a real `msgx start --role writer` child, a probe pool and a listener on the given
 * channels; `close()` takes all of it down again, whatever failed.
 */
import pg from 'pg';
import { startKafkaBroker } from '../../test/support/kafka/broker.ts';
import { startMsgx, type Child } from './child.ts';
import { createBenchMysql, createBenchPg, type BenchMysql, type BenchPg } from './databases.ts';
import { listen, type Notifications } from './waitUntil.ts';

export interface WriterStage {
  readonly my: BenchMysql;
  readonly db: BenchPg;
  readonly broker: Awaited<ReturnType<typeof startKafkaBroker>>;
  readonly child: Child;
  readonly pool: pg.Pool;
  readonly notes: Notifications;
  close(): Promise<void>;
}

export async function startWriterStage(label: string, channels: readonly string[]): Promise<WriterStage> {
  const my = await createBenchMysql(label);
  const db = await createBenchPg(label);
  const broker = await startKafkaBroker({ topics: { msg: 1, schd: 1 } });
  const child = await startMsgx(label, ['--role', 'writer'], {
    MSGX_DATABASE_URL: db.url,
    MSGX_MAILBOX_MYSQL_URL: my.url,
    MSGX_KAFKA_BROKERS: broker.brokers.join(','),
    MSGX_POLL_INTERVAL_MS: '200',
  });
  const pool = new pg.Pool({ connectionString: db.url, max: 2, application_name: 'msgx-bench-probe' });
  const notes = await listen(db.url, channels);
  return {
    my, db, broker, child, pool, notes,
    async close() {
      await notes.close().catch(() => undefined);
      await pool.end().catch(() => undefined);
      await child.stop();
      await broker.close();
      await db.drop();
      await my.drop();
    },
  };
}
