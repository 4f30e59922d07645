import path from 'node:path';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import type { KafkaSink } from './kafkaSink.ts';
import type { KafkajsSinkOptions } from './kafkajsSink.ts';
import { createNdjsonSink } from './ndjsonSink.ts';

/** Kafka when MSGX_KAFKA_BROKERS is set, otherwise NDJSON files under MSGX_DATA_DIR/out (logged loudly). */
export function createKafkaSink(cfg: Config, log: Logger): KafkaSink {
  if (cfg.kafka.brokers) {
    const sink = lazyKafkajsSink({ brokers: cfg.kafka.brokers, clientId: cfg.kafka.clientId, log });
    log.info({ brokers: cfg.kafka.brokers, topics: [cfg.kafka.topicMsg, cfg.kafka.topicSchd, ...(cfg.aidxOut ? [cfg.kafka.topicAidx] : [])] }, 'Kafka targets go to Kafka');
    return sink;
  }
  const dir = path.join(cfg.dataDir, 'out');
  log.warn(
    { dir, files: [cfg.kafka.topicMsg, cfg.kafka.topicSchd, ...(cfg.aidxOut ? [cfg.kafka.topicAidx] : [])].map((t) => `${t}.ndjson`) },
    'no Kafka configured (MSGX_KAFKA_BROKERS unset): Kafka targets are written to a LOCAL NDJSON sink, not to Kafka',
  );
  return createNdjsonSink(dir);
}

/**
 * The kafkajs sink, its modules (kafkajs: ~140 files) loaded on its first use, after the writer
 * lock, not while `msgx start` loads (docs/scaling.md "Restart, takeover and stop").
 */
function lazyKafkajsSink(opts: KafkajsSinkOptions): KafkaSink {
  let loading: Promise<KafkaSink> | undefined;
  const sink = () => (loading ??= import('./kafkajsSink.ts').then((m) => m.createKafkajsSink(opts)));
  return {
    kind: 'kafka',
    description: `Kafka ${opts.brokers.join(',')}`,
    send: async (topic, records) => (await sink()).send(topic, records),
    check: async () => (await sink()).check(),
    close: async () => {
      if (loading) await (await loading).close();
    },
  };
}
