import type { ProducerConfig, RetryOptions } from 'kafkajs';

/**
 * The producer guarantees of docs/contract/design.md §7: acks=all (-1), idempotent, one request in flight per
 * connection. They are not configurable: anything that asks for other values makes msgx refuse
 * to start with a ProducerSafetyError.
 */
export const PRODUCER_GUARANTEES = Object.freeze({ acks: -1, idempotent: true, maxInFlightRequests: 1 } as const);

/** What may be tuned on the producer; everything else is refused. */
export interface ProducerTuning {
  readonly retry?: RetryOptions;
  readonly metadataMaxAge?: number;
  readonly allowAutoTopicCreation?: boolean;
}

const TUNABLE = new Set<string>(['retry', 'metadataMaxAge', 'allowAutoTopicCreation']);

export class ProducerSafetyError extends RefusedError {
  constructor(readonly setting: string, readonly requested: unknown) {
    super(
      `refusing to start the Kafka producer: '${setting}' = ${JSON.stringify(requested)} ` +
        (setting in PRODUCER_GUARANTEES
          ? `would weaken delivery; msgx always uses acks=-1, idempotent=true, maxInFlightRequests=1`
          : `is not a producer setting msgx allows (allowed: ${[...TUNABLE].join(', ')})`),
    );
  }
}

/** A frozen kafkajs producer config with the guarantees; throws ProducerSafetyError on any attempt to change them. */
export function buildProducerConfig(overrides: Readonly<Record<string, unknown>> = {}): Readonly<ProducerConfig> {
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    if (key in PRODUCER_GUARANTEES) {
      if (value !== PRODUCER_GUARANTEES[key as keyof typeof PRODUCER_GUARANTEES]) throw new ProducerSafetyError(key, value);
    } else if (!TUNABLE.has(key)) {
      throw new ProducerSafetyError(key, value);
    }
  }
  const tuning = overrides as ProducerTuning;
  const config: ProducerConfig = {
    idempotent: PRODUCER_GUARANTEES.idempotent,
    maxInFlightRequests: PRODUCER_GUARANTEES.maxInFlightRequests,
    // Bounded: an outage surfaces as a failed send (recorded, backed off by the dispatcher) instead
    // of a send that never returns. Retries inside one send keep the idempotent sequence, so the
    // broker drops a batch it already has.
    retry: tuning.retry ?? { retries: 3, initialRetryTime: 200, maxRetryTime: 2000 },
    ...(tuning.metadataMaxAge !== undefined ? { metadataMaxAge: tuning.metadataMaxAge } : {}),
    ...(tuning.allowAutoTopicCreation !== undefined ? { allowAutoTopicCreation: tuning.allowAutoTopicCreation } : {}),
  };
  assertProducerGuarantees(config);
  return Object.freeze(config);
}

/** Last check on the exact object handed to kafkajs. */
export function assertProducerGuarantees(config: ProducerConfig): void {
  if (config.idempotent !== true) throw new ProducerSafetyError('idempotent', config.idempotent);
  if (config.maxInFlightRequests !== 1) throw new ProducerSafetyError('maxInFlightRequests', config.maxInFlightRequests);
  if (config.transactionalId !== undefined) throw new ProducerSafetyError('transactionalId', config.transactionalId);
  if (config.retry?.retries !== undefined && config.retry.retries < 1) throw new ProducerSafetyError('retry.retries', config.retry.retries);
}
import { RefusedError } from '../../platform/errors.ts';
