/**
 * The decode + decide budget and the stuck-head readiness check of the pump (docs/architecture.md
 * "Decode budget"), with the pump's ports injected (no switch in src): a decide that takes longer
 * than MSGX_DECODE_BUDGET_MS — measured on an injected monotonic clock — is PARKED instead of
 * applied, and the message behind it is decided; a head whose decode does not come back turns the
 * `pump` readiness check not ready, naming the message and how long, once MSGX_HEAD_STALL_READY_MS
 * has passed. On main neither existed.
 */
import { afterEach, expect, it } from 'vitest';
import { decide, type Decider } from '../../src/domain/decide.ts';
import { systemClock, type Clock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import type { Service } from '../../src/platform/service.ts';
import { createIngest } from '../../src/write/ingest/ingestService.ts';
import { createHeadDecoder, type HeadDecoder } from '../../src/write/pump/headDecoder.ts';
import { createPump, type Pump } from '../../src/write/pump/pumpService.ts';
import { WriteModel } from '../../src/write/pump/writeModel.ts';
import { waitFor } from '../support/waitFor.ts';
import { adft, estt } from '../write/support/messages.ts';
import { insertCminmsgs, procStates, writeStage } from '../write/support/writeHarness.ts';

const t = writeStage('pumpbudget');
let running: Service[] = [];
afterEach(async () => {
  for (const s of running.reverse()) await s.stop();
  running = [];
});

async function start(clock: Clock, ports: { decide?: Decider; decoder?: HeadDecoder; elapsedMs?: () => number }): Promise<Pump> {
  const rt = t.runtime({ clock, env: { MSGX_DECODE_BUDGET_MS: '1000', MSGX_HEAD_STALL_READY_MS: '60000' } });
  const model = new WriteModel();
  const ingest = createIngest(rt);
  const pump = createPump(rt, { model, ...ports });
  for (const s of [ingest, pump]) {
    await s.start();
    running.push(s);
  }
  return pump;
}

const state = async (id: string) => (await procStates(t.db)).find((p) => p.msg_id === id);

it('a decide over the budget is PARKED (CODEC_ERROR, the time and the budget as reason) and not applied; the next message is decided', { timeout: 60_000 }, async () => {
  // The monotonic clock the pump measures decode + decide with: the decide of SEQN 2 "takes" 1,500 ms
  // (the inline decode adds its real fraction of a millisecond).
  let ms = 0;
  const slowDecide: Decider = (flights, message, reference, opts) => {
    if (message.meta.seqn === '2') ms += 1500;
    return decide(flights, message, reference, opts);
  };
  const first = await insertCminmsgs(t.my, adft(1, '886001'));
  const slow = await insertCminmsgs(t.my, estt(2, '886001', '14MAR250830'));
  const good = await insertCminmsgs(t.my, estt(3, '886001', '14MAR250812'));
  const pump = await start(systemClock, { decide: slowDecide, elapsedMs: () => ms });
  await waitFor(async () => (await state(good))?.state === 'SUCCEEDED', { timeoutMs: 30_000, what: 'the good message SUCCEEDED' });
  expect((await state(first))?.state).toBe('SUCCEEDED');
  const parked = await state(slow);
  expect(parked).toMatchObject({ state: 'PARKED', error_class: 'CODEC_ERROR', attempts: 1 });
  expect(parked?.last_error).toMatch(/^decode \+ decide took 15\d\d ms, longer than the budget of 1000 ms \(MSGX_DECODE_BUDGET_MS\)/);
  // Only the good message's estimate was applied.
  expect(pump.model.flights.get('886001')!.estimatedTime).toBe('2025-03-14T00:12:00.000Z');
});

it('/readyz check pump: not ready, naming the head and how long, while the head has not moved for MSGX_HEAD_STALL_READY_MS; ready once it moved', { timeout: 60_000 }, async () => {
  let shift = 0;
  const clock: Clock = { now: () => new Date(Date.now() + shift), sleep: (ms, signal) => systemClock.sleep(ms, signal) };
  // A decoder whose decode of SEQN 2 does not come back until released (a hung decode, as seen from the pump).
  const real = createHeadDecoder({ cfg: { airportTz: 'Asia/Shanghai', identityIncludeDay: false, airportIata: undefined, decodeBudgetMs: 600_000 }, log: silentLogger });
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let holding = false;
  const decoder: HeadDecoder = {
    async decode(rawXml, nul) {
      if (rawXml.includes('<SEQN>2</SEQN>')) {
        holding = true;
        await released;
      }
      return real.decode(rawXml, nul);
    },
    close: () => real.close(),
  };
  const first = await insertCminmsgs(t.my, adft(1, '886001'));
  const pump = await start(clock, { decoder });
  await waitFor(async () => (await state(first))?.state === 'SUCCEEDED', { timeoutMs: 30_000, what: 'the first message SUCCEEDED' });
  // The held message is the FIFO head now (the lowest undecided), the good one behind it.
  const held = await insertCminmsgs(t.my, estt(2, '886001', '14MAR250830'));
  const good = await insertCminmsgs(t.my, estt(3, '886001', '14MAR250812'));
  try {
    await waitFor(() => holding, { timeoutMs: 30_000, what: 'the pump to take up the held message' });
    await expect(pump.readiness.check()).resolves.toBeUndefined();
    shift = 61_000;
    await expect(pump.readiness.check()).rejects.toThrow(new RegExp(`^FIFO head message ${held} has not moved for 6\\d s`));
  } finally {
    release();
  }
  await waitFor(async () => (await state(good))?.state === 'SUCCEEDED', { timeoutMs: 30_000, what: 'the good message SUCCEEDED' });
  await pump.drained();
  await expect(pump.readiness.check()).resolves.toBeUndefined();
});
