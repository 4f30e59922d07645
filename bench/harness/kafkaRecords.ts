/** Time stamps of records arriving at the in-process test broker (test/support/kafka/broker.ts). */
import type { KafkaTestBroker, StoredRecord } from '../../test/support/kafka/broker.ts';
import { nowMs } from './stats.ts';

/**
 * Wait until `done(records of topic)` holds, checking each time a record arrives; returns the
 * performance.now() of the arrival that made it true (the broker has stored it, i.e. acked).
 */
export async function untilRecords(
  broker: KafkaTestBroker,
  topic: string,
  done: (records: readonly StoredRecord[]) => boolean,
  timeoutMs: number,
): Promise<number> {
  let have = broker.records(topic).length;
  if (done(broker.records(topic))) return nowMs();
  for (;;) {
    const records = await broker.waitFor(topic, have + 1, { timeoutMs });
    const at = nowMs();
    if (done(records)) return at;
    have = records.length;
  }
}
