/**
 * `msgx start` stopped before it finished starting (a supervisor's SIGTERM while it waits for
 * PostgreSQL): it must stop waiting and exit 0 like any other requested stop, not die of the signal.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { waitFor } from '../support/waitFor.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

it('a SIGTERM while msgx waits for PostgreSQL ends the wait and exits 0', async () => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MSGX_')));
  const child = spawn(process.execPath, ['bin/msgx.js', 'start'], {
    cwd: ROOT,
    env: { ...env, MSGX_DATABASE_URL: `postgres://msgx@127.0.0.1:${await closedPort()}/msgx`, MSGX_HTTP_PORT: '0', MSGX_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  try {
    await waitFor(() => out.includes('PostgreSQL not reachable; waiting for it'), { timeoutMs: 30_000, what: 'the wait for PostgreSQL' });
    child.kill('SIGTERM');
    expect(await exit).toEqual({ code: 0, signal: null });
    expect(out).toContain('msgx stopped during start-up');
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}, 60_000);
