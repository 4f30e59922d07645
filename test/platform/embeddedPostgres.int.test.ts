/**
 * `msgx start` on its embedded default, stopped the way a terminal's Ctrl-C or `timeout` stops it:
 * SIGINT to the whole process group. The embedded server must not take that signal itself (it
 * runs in its own group): msgx stops its services, then the server, and exits 0.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/platform/processAlive.ts';
import { spawnMsgx } from '../support/msgxProcess.ts';

let dataDir: string | undefined;

afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it('a SIGINT to the whole process group stops the services first, the embedded server last, and exits 0', async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'msgx-embedded-'));
  // detached: its own process group, as a shell gives a foreground job
  const msgx = spawnMsgx(['start'], { MSGX_DATA_DIR: dataDir, MSGX_HTTP_PORT: '0', MSGX_LOG_LEVEL: 'info' }, { detached: true });
  let postmaster = 0;
  try {
    await msgx.waitForLine('"msgx started"', { timeoutMs: 60_000 });
    postmaster = Number((await readFile(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    expect(isProcessAlive(postmaster)).toBe(true);

    process.kill(-msgx.pid, 'SIGINT'); // the whole group, like Ctrl-C in a terminal
    expect((await msgx.exit).code).toBe(0);
    const out = msgx.output();

    const messages = out.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages).not.toContain('msgx stopped itself: writer lock lost; exiting with code 1');
    expect(out).not.toMatch(/connection lost|terminating connection/);
    const order = ['stopping', 'embedded PostgreSQL stopped', 'msgx stopped'].map((m) => messages.indexOf(m));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(isProcessAlive(postmaster)).toBe(false);
  } finally {
    if (postmaster > 0 && isProcessAlive(postmaster)) process.kill(postmaster, 'SIGINT');
  }
}, 120_000);
