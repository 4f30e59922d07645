/**
 * The pump's head decoder (src/write/pump/headDecoder.ts, docs/architecture.md "Decode budget"):
 * what the decode worker gives equals the inline decode for every corpus message and a generated
 * day with bad input; a decode over the budget is cut short with a CODEC_ERROR naming the budget,
 * the worker is replaced, and the fresh one decodes correctly. A plan's records come back in parts
 * (one short task each on the writer's loop, not one long structured clone). On main there was no decoder: the
 * pump decoded every head on its own thread, however long that took.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { generateDay } from '../../bench/generate.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import { decodeHead, RECORDS_PER_PART } from '../../src/write/pump/decodeHead.ts';
import { createHeadDecoder, type HeadDecoder, type HeadDecoderOptions } from '../../src/write/pump/headDecoder.ts';
import { currentThreadId, threadCpuMs } from '../../src/platform/threadCpu.ts';
import { fltr, schdXml } from '../domain/support/buildXml.ts';
import { corpusXmls } from '../support/corpusDir.ts';
import { buildShape } from './support/decodeShapes.ts';

const day = generateDay({ seed: 27, day: '2025-03-14', flights: 30, flopsPerFlight: 3, duplicateRate: 0.03, badRate: 0.05, fullLists: true });
const inputs = [...corpusXmls(), ...day.messages, 'not xml', '<MSG><META/></MSG>'];
const base = loadConfig({});
const open: HeadDecoder[] = [];
afterEach(async () => {
  for (const d of open.splice(0)) await d.close();
});

function decoder(budgetMs: number, inlineBelowChars = 0, more: Pick<HeadDecoderOptions, 'threadCpuMs' | 'wallCapMs'> = {}) {
  // The budget is read at each decode: a test may change it between two.
  const cfg = { airportTz: base.airportTz, identityIncludeDay: base.identityIncludeDay, airportIata: base.airportIata, decodeBudgetMs: budgetMs };
  const d = createHeadDecoder({ cfg, log: silentLogger, inlineBelowChars, ...more });
  open.push(d);
  return { d, cfg };
}

describe('the head decoder', () => {
  it('decodes in the worker exactly what decodeHead gives inline (every corpus message, bad input, NUL)', { timeout: 120_000 }, async () => {
    const { d } = decoder(600_000); // all in the worker
    for (const xml of inputs) {
      const { decoded } = await d.decode(xml, false);
      expect(decoded).toStrictEqual(decodeHead(xml, false, base));
    }
    expect((await d.decode('<MSG/>', true)).decoded).toStrictEqual(decodeHead('<MSG/>', true, base));
    expect(d.stats).toMatchObject({ workers: 1, inWorker: inputs.length + 1, inline: 0, overBudget: 0 });
  });

  it('small messages are decoded inline, large ones in the worker', { timeout: 60_000 }, async () => {
    const { d } = decoder(600_000, 1000);
    const small = day.messages.find((m) => m.length < 1000)!;
    const large = buildShape({ whole: 'plan records' }, 200_000);
    expect((await d.decode(small, false)).decoded).toStrictEqual(decodeHead(small, false, base));
    expect((await d.decode(large, false)).decoded).toStrictEqual(decodeHead(large, false, base));
    expect(d.stats).toMatchObject({ inline: 1, inWorker: 1 });
  });

  it('a plan of many records comes back from the worker in parts, whole and in order', { timeout: 60_000 }, async () => {
    const { d } = decoder(600_000);
    const records = 3 * RECORDS_PER_PART + 1;
    const plan = schdXml('ADFT', Array.from({ length: records }, (_, i) => fltr(String(800_000 + i), '14MAR250930')), { seqn: '1' });
    const { decoded } = await d.decode(plan, false);
    expect(decoded).toStrictEqual(decodeHead(plan, false, base));
    expect(d.stats.parts).toBe(4);
  });

  it('the budget is CPU time: a decode past it in wall time whose thread got no CPU meanwhile (a loaded machine) is not cut short', { timeout: 120_000 }, async () => {
    // The injected clock: the worker thread never ran (0 ms of CPU, however long the wall time).
    const { d } = decoder(1, 0, { threadCpuMs: () => 0, wallCapMs: 600_000 });
    const slow = buildShape({ whole: 'plan records' }, 4 * 1024 * 1024);
    const { decoded } = await d.decode(slow, false);
    expect(decoded.ok).toBe(true);
    expect(d.stats.overBudget).toBe(0);
  });

  it('the same decode is cut short at the wall cap however little CPU it got', { timeout: 120_000 }, async () => {
    const { d } = decoder(1, 0, { threadCpuMs: () => 0, wallCapMs: 1 });
    const slow = buildShape({ whole: 'plan records' }, 4 * 1024 * 1024);
    expect((await d.decode(slow, false)).decoded).toMatchObject({ ok: false, errorClass: 'CODEC_ERROR' });
    expect(d.stats.overBudget).toBe(1);
  });

  it("a thread's CPU time is read from /proc and grows with work", () => {
    const tid = currentThreadId();
    if (tid === undefined) return; // no /proc: the budget is wall time (docs/architecture.md "Decode budget")
    const before = threadCpuMs(tid)!;
    // Spin until a clock tick (10 ms of CPU) is counted; on a loaded machine that takes longer in wall time.
    const deadline = performance.now() + 60_000;
    let x = 0;
    while (threadCpuMs(tid) === before && performance.now() < deadline) for (let i = 0; i < 100_000; i++) x += Math.sqrt(i);
    expect(x).toBeGreaterThan(0);
    expect(threadCpuMs(tid)!).toBeGreaterThan(before);
  });

  it('a decode over the budget is a CODEC_ERROR naming the budget; a fresh worker decodes what comes next', { timeout: 120_000 }, async () => {
    const { d, cfg } = decoder(600_000);
    const good = day.messages[0]!;
    // Start the worker first: the budget counts the decode, not the worker's start-up.
    expect((await d.decode(good, false)).decoded).toStrictEqual(decodeHead(good, false, base));
    // A legal plan of ~4 MiB (~60,000 minimal records): its decode takes far longer than 1 ms.
    const slow = buildShape({ whole: 'plan records' }, 4 * 1024 * 1024);
    expect(decodeHead(slow, false, base).ok).toBe(true);
    cfg.decodeBudgetMs = 1;
    const cut = await d.decode(slow, false);
    expect(cut.decoded).toEqual({
      ok: false, errorClass: 'CODEC_ERROR', meta: null, error: expect.stringMatching(/^decode took longer than 1 ms \(MSGX_DECODE_BUDGET_MS\)/),
    });
    expect(d.stats).toMatchObject({ workers: 2, overBudget: 1 });
    cfg.decodeBudgetMs = 600_000;
    for (const xml of day.messages.slice(0, 20)) expect((await d.decode(xml, false)).decoded).toStrictEqual(decodeHead(xml, false, base));
    // Within the budget, the slow one decodes in the worker too.
    expect((await d.decode(slow, false)).decoded).toStrictEqual(decodeHead(slow, false, base));
    expect(d.stats).toMatchObject({ workers: 2, overBudget: 1 });
  });
});
