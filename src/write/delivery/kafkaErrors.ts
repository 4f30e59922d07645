import { DeliveryFailure } from './deliveryFailure.ts';

/** Protocol errors after which this producer id is unusable: start a new producer, then retry. */
export const PRODUCER_STATE_ERRORS: ReadonlySet<string> = new Set([
  'OUT_OF_ORDER_SEQUENCE_NUMBER',
  'UNKNOWN_PRODUCER_ID',
  'INVALID_PRODUCER_EPOCH',
  'INVALID_PRODUCER_ID_MAPPING',
  'PRODUCER_FENCED',
]);

/** kafkajs errors that mean "the cluster is not reachable right now". */
const UNREACHABLE = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSNoBrokerAvailableError',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSTopicMetadataNotLoaded',
  'KafkaJSStaleTopicMetadataAssignment',
  'KafkaJSTimeout',
  'KafkaJSLockTimeout',
]);

interface KafkaLikeError {
  name?: unknown;
  message?: unknown;
  retriable?: unknown;
  type?: unknown;
  cause?: unknown;
  originalError?: unknown;
  errors?: unknown;
}

/**
 * Classify a kafkajs error by its root cause (kafkajs wraps the real error when its own retries run
 * out). Transient: connection trouble, timeouts, retriable protocol errors and producer-state
 * errors (cured by a new producer). Permanent: the broker refused these records (e.g.
 * MESSAGE_TOO_LARGE, INVALID_RECORD) or kafkajs rejected them.
 */
export function isTransientKafkaError(err: unknown): boolean {
  if (needsNewProducer(err)) return true;
  const e = rootCause(err);
  const name = typeof e.name === 'string' ? e.name : '';
  if (name === 'KafkaJSAggregateError' && Array.isArray(e.errors)) return e.errors.some(isTransientKafkaError);
  if (UNREACHABLE.has(name)) return true;
  return e.retriable === true;
}

function rootCause(err: unknown): KafkaLikeError {
  let e = (typeof err === 'object' && err !== null ? err : {}) as KafkaLikeError;
  for (let depth = 0; depth < 10; depth++) {
    const next = e.cause ?? e.originalError;
    if (typeof next !== 'object' || next === null || next === e) break;
    e = next as KafkaLikeError;
  }
  return e;
}

/** Whether this error leaves the producer id unusable (its sequences or epoch are rejected). */
export function needsNewProducer(err: unknown): boolean {
  let e = err as KafkaLikeError | undefined;
  for (let depth = 0; e && typeof e === 'object' && depth < 10; depth++) {
    if (PRODUCER_STATE_ERRORS.has(String(e.type))) return true;
    e = (e.cause ?? e.originalError) as KafkaLikeError | undefined;
  }
  return false;
}

export function kafkaFailure(err: unknown, topic: string): DeliveryFailure {
  const message = err instanceof Error ? err.message : String(err);
  return new DeliveryFailure(`Kafka send to '${topic}' failed: ${message}`, isTransientKafkaError(err), { cause: err });
}
