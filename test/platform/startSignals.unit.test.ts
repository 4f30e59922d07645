/**
 * `msgx start` stopped before it finished starting (a supervisor's SIGTERM while it waits for
 * PostgreSQL): it must stop waiting and exit 0 like any other requested stop, not die of the signal.
 */
import net from 'node:net';
import { expect, it } from 'vitest';
import { spawnMsgx } from '../support/msgxProcess.ts';

async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

it('a SIGTERM while msgx waits for PostgreSQL ends the wait and exits 0', async () => {
  const msgx = spawnMsgx(['start'], {
    MSGX_DATABASE_URL: `postgres://msgx@127.0.0.1:${await closedPort()}/msgx`, MSGX_HTTP_PORT: '0', MSGX_LOG_LEVEL: 'info',
  });
  await msgx.waitForLine('PostgreSQL not reachable; waiting for it', { timeoutMs: 90_000 });
  msgx.kill('SIGTERM');
  expect(await msgx.exit).toEqual({ code: 0, signal: null });
  expect(msgx.output()).toContain('msgx stopped during start-up');
}, 150_000);
