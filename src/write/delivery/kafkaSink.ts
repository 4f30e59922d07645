/**
 * The port the Kafka targets write through. Two implementations: kafkajs against real brokers
 * (`kafkajsSink.ts`) and NDJSON files under MSGX_DATA_DIR/out when no Kafka is configured
 * (`ndjsonSink.ts`). The dispatcher never knows which one it has.
 */

/** One record as the topic receives it. */
export interface SinkRecord {
  readonly key: string | null;
  /** JSON text, or XML text when `format` is 'xml' (the AIDX target). */
  readonly value: string;
  /** 'xml': the value is an XML document, kept as a string in the NDJSON file sink. Default JSON. */
  readonly format?: 'json' | 'xml';
  /** Header values are strings. */
  readonly headers: Readonly<Record<string, string>>;
  /** The msg_event rows this record delivers (several for an aggregated schd record). */
  readonly eventIds: readonly string[];
}

/** Where a record landed: kept in msg_event.delivery_ref. */
export type RecordRef =
  | { readonly topic: string; readonly partition: number; readonly offset: string }
  | { readonly topic: string; readonly file: string; readonly byteOffset: number };

export interface KafkaSink {
  readonly kind: 'kafka' | 'file';
  /** For logs: brokers or the output folder. */
  readonly description: string;
  /**
   * Append `records` to `topic` in order, all of them or (as far as the caller can tell) none:
   * resolves with one ref per record, in the same order; rejects with a DeliveryFailure.
   */
  send(topic: string, records: readonly SinkRecord[]): Promise<RecordRef[]>;
  /** Readiness: throws when the sink cannot currently accept records. */
  check(): Promise<void>;
  close(): Promise<void>;
}
