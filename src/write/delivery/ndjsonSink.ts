import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { DeliveryFailure } from './deliveryFailure.ts';
import type { KafkaSink, RecordRef, SinkRecord } from './kafkaSink.ts';

/**
 * The local stand-in for Kafka (no MSGX_KAFKA_BROKERS): each topic is a file `<dir>/<topic>.ndjson`
 * with one JSON object per record — `{ topic, key, value, headers, eventIds }`, value parsed back
 * from its JSON text (an XML value, the AIDX target, is kept as a string) — appended and fsynced before the rows count as SENT. The ref of a record is
 * the byte offset of its line. The folder is made 0700 and the files 0600 (docs/security.md §2):
 * they hold every message msgx delivers.
 */
export function createNdjsonSink(dir: string): KafkaSink {
  // Appends to one file are serialised so byte offsets stay exact.
  const queues = new Map<string, Promise<unknown>>();

  const append = async (topic: string, records: readonly SinkRecord[]): Promise<RecordRef[]> => {
    const file = path.join(dir, `${topic}.ndjson`);
    const lines = records.map((r) =>
      Buffer.from(
        JSON.stringify({ topic, key: r.key, value: r.format === 'xml' ? r.value : (JSON.parse(r.value) as unknown), headers: r.headers, eventIds: r.eventIds }) + '\n',
        'utf8',
      ),
    );
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const fh = await open(file, 'a', 0o600);
      try {
        let offset = (await fh.stat()).size;
        const refs = lines.map((line) => {
          const ref = { topic, file, byteOffset: offset };
          offset += line.length;
          return ref;
        });
        await fh.write(Buffer.concat(lines));
        await fh.datasync();
        return refs;
      } finally {
        await fh.close();
      }
    } catch (err) {
      throw new DeliveryFailure(`writing ${file} failed: ${(err as Error).message}`, true, { cause: err });
    }
  };

  return {
    kind: 'file',
    description: `NDJSON files in ${dir}`,
    send(topic, records) {
      const prior = queues.get(topic) ?? Promise.resolve();
      const next = prior.catch(() => undefined).then(() => append(topic, records));
      queues.set(topic, next);
      return next;
    },
    async check() {
      // Always ready: the folder is created on first write, and a write error is retried.
    },
    async close() {
      await Promise.allSettled(queues.values());
    },
  };
}
