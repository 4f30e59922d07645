import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/platform/logger.ts';
import { createKafkajsSink } from '../../../src/write/delivery/kafkajsSink.ts';
import {
  assertProducerGuarantees,
  buildProducerConfig,
  PRODUCER_GUARANTEES,
  ProducerSafetyError,
} from '../../../src/write/delivery/producerConfig.ts';

describe('Kafka producer guarantees', () => {
  it('builds a frozen config with idempotent=true, maxInFlightRequests=1 (acks=-1 on every send)', () => {
    const cfg = buildProducerConfig();
    expect(cfg).toMatchObject({ idempotent: true, maxInFlightRequests: 1 });
    expect(PRODUCER_GUARANTEES.acks).toBe(-1);
    expect(Object.isFrozen(cfg)).toBe(true);
    expect(() => {
      (cfg as { idempotent: boolean }).idempotent = false;
    }).toThrow(TypeError);
  });

  it.each([
    ['idempotent', false],
    ['maxInFlightRequests', 5],
    ['acks', 1],
    ['acks', 0],
    ['transactionalId', 'tx-1'],
    ['createPartitioner', () => () => 0],
  ])('refuses %s = %s with an error that names the setting', (setting, value) => {
    let caught: unknown;
    try {
      buildProducerConfig({ [setting]: value });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ProducerSafetyError);
    expect((caught as Error).message).toContain(`'${setting}'`);
    expect((caught as Error).message).toMatch(/refusing to start the Kafka producer/);
  });

  it('accepts the guaranteed values restated and the tunable settings', () => {
    const cfg = buildProducerConfig({ idempotent: true, maxInFlightRequests: 1, acks: -1, retry: { retries: 7 }, metadataMaxAge: 1000 });
    expect(cfg).toMatchObject({ idempotent: true, maxInFlightRequests: 1, retry: { retries: 7 }, metadataMaxAge: 1000 });
  });

  it('the last check refuses a weakened object and a retry count kafkajs cannot make idempotent', () => {
    expect(() => assertProducerGuarantees({ idempotent: false, maxInFlightRequests: 1 })).toThrow(ProducerSafetyError);
    expect(() => assertProducerGuarantees({ idempotent: true, maxInFlightRequests: 2 })).toThrow(ProducerSafetyError);
    expect(() => assertProducerGuarantees({ idempotent: true, maxInFlightRequests: 1, retry: { retries: 0 } })).toThrow(/retry.retries/);
  });

  it('the Kafka sink refuses to be built (so msgx refuses to start) when asked to weaken the producer', () => {
    expect(() =>
      createKafkajsSink({ brokers: ['127.0.0.1:9'], clientId: 't', log: silentLogger, producer: { maxInFlightRequests: 5 } }),
    ).toThrow(ProducerSafetyError);
  });
});
