import { decidedInShadow, type RunMode } from '../../platform/runMode.ts';
import type { KafkaSink, RecordRef, SinkRecord } from './kafkaSink.ts';
import { pushAll } from '../../platform/arrays.ts';

/**
 * The Kafka targets of a database that ran (or runs) as a shadow: a record of a decision decided
 * in shadow goes to the topic with the shadow's prefix (`shadow.msg`, and so the NDJSON file
 * `shadow.msg.ndjson`), never to the production topic — also when it is delivered only after the
 * cut-over. Which decision a record comes from is its `log-position` header (for a `schd` batch:
 * the highest position in it, so a batch that holds any production decision is production's).
 * A call is split into runs of consecutive records with the same topic, sent in order.
 */
export function shadowTopics(sink: KafkaSink, mode: RunMode): KafkaSink {
  const prefix = mode.topicPrefix;
  if (prefix === null) return sink;
  const topicOf = (topic: string, r: SinkRecord): string => {
    const position = r.headers['log-position'];
    const shadow = mode.shadow || (position !== undefined && position !== '' && decidedInShadow(mode, position));
    return shadow ? prefix + topic : topic;
  };
  return {
    kind: sink.kind,
    description: mode.shadow ? `${sink.description} (shadow: topics prefixed '${prefix}')` : sink.description,
    async send(topic, records) {
      const refs: RecordRef[] = [];
      let i = 0;
      while (i < records.length) {
        const t = topicOf(topic, records[i]!);
        let j = i + 1;
        while (j < records.length && topicOf(topic, records[j]!) === t) j++;
        pushAll(refs, await sink.send(t, records.slice(i, j)));
        i = j;
      }
      return refs;
    },
    check: () => sink.check(),
    close: () => sink.close(),
  };
}
