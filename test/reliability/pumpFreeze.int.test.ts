/**
 * No message can freeze the writer (docs/architecture.md "Decode budget"): under the assembled app,
 * a legal plan whose decode takes longer than MSGX_DECODE_BUDGET_MS is PARKED (CODEC_ERROR) with
 * the budget as its reason, the good message behind it is decided, and /healthz answers all the
 * while (its decode runs in the decode worker, not on the thread that serves HTTP). On main the
 * budget did not exist: the plan was decoded on the writer's thread for as long as it took.
 */
import { afterAll, expect, it } from 'vitest';
import { fileDatabase } from '../support/fileDatabase.ts';
import { startApp, type RunningApp } from '../support/testApp.ts';
import { waitFor } from '../support/waitFor.ts';
import { adft, estt } from '../write/support/messages.ts';
import { decodeHead } from '../../src/write/pump/decodeHead.ts';
import { buildShape } from './support/decodeShapes.ts';

const BUDGET_MS = 200;
const db = fileDatabase('pumpfreeze');
let app: RunningApp | undefined;

afterAll(async () => {
  await app?.stop();
});

interface State {
  msg_id: string;
  state: string;
  error_class: string | null;
  last_error: string | null;
}

async function states(): Promise<Map<string, State>> {
  const { rows } = await db.pool.query<State>('SELECT msg_id::text, state, error_class, last_error FROM proc_state');
  return new Map(rows.map((r) => [r.msg_id, r]));
}

it('a plan over the decode budget is PARKED with the budget as reason, the next message is decided, /healthz answers throughout', { timeout: 240_000 }, async () => {
  app = await startApp(db, { env: { MSGX_DECODE_BUDGET_MS: String(BUDGET_MS) } });
  // A legal plan of ~4 MiB (~70,000 minimal records, under every decode limit): decoding it takes
  // about a second, far more than the budget — the slower the machine, the more so.
  const slow = buildShape({ whole: 'plan records' }, 4 * 1024 * 1024);
  expect(decodeHead(slow, false, app.cfg)).toMatchObject({ ok: true });
  const [first, big, good] = await app.send([adft(1, '886001'), slow, estt(3, '886001', '14MAR250812')]);

  const health: number[] = [];
  let done = false;
  const probing = (async () => {
    while (!done) {
      const res = await fetch(`${app!.base}/healthz`);
      health.push(res.status);
      await res.arrayBuffer();
    }
  })();
  try {
    await waitFor(async () => (await states()).get(good!)?.state === 'SUCCEEDED', { timeoutMs: 180_000, intervalMs: 50, what: 'the good message SUCCEEDED' });
  } finally {
    done = true;
    await probing;
  }
  const s = await states();
  expect(s.get(first!)?.state).toBe('SUCCEEDED');
  expect(s.get(big!)).toMatchObject({ state: 'PARKED', error_class: 'CODEC_ERROR' });
  expect(s.get(big!)?.last_error).toMatch(new RegExp(`^decode took longer than ${BUDGET_MS} ms \\(MSGX_DECODE_BUDGET_MS\\)`));
  // /healthz answered (every answer 200) while the plan was being decoded and parked.
  expect(health.length).toBeGreaterThan(0);
  expect(new Set(health)).toEqual(new Set([200]));
  // The head moved on: /readyz's `pump` check is ready.
  const ready = await fetch(`${app.base}/readyz`);
  expect(await ready.text()).not.toMatch(/FIFO head/);
});
