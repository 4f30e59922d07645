/**
 * The one LISTEN helper (src/platform/listen.ts) against real PostgreSQL behind a TCP proxy that
 * plays the outage: notifications arrive with their channel and payload, a cut is warned about
 * once however many reconnect tries fail, the return is said once, and every (re)connect runs
 * onListening (the catch-up), on the injected clock's retry delay.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Channels, notify, type Channel } from '../../src/platform/channels.ts';
import { FakeClock } from '../../src/platform/clock.ts';
import { createPool } from '../../src/platform/db.ts';
import { createListener, LISTEN_RETRY_MS, type Listener } from '../../src/platform/listen.ts';
import { captureLog } from '../reliability/support/captureLog.ts';
import { fileDatabase } from '../support/fileDatabase.ts';
import { startTcpProxy, targetOf, type TcpProxy } from '../support/tcpProxy.ts';
import { waitFor } from '../support/waitFor.ts';

const db = fileDatabase('listen');
let proxy: TcpProxy;

beforeAll(async () => {
  proxy = await startTcpProxy({ target: targetOf(db.url, 5432) });
});

afterAll(async () => {
  await proxy?.close();
});

const lines = (text: string): { level: number; msg: string }[] =>
  text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { level: number; msg: string });

describe('createListener', () => {
  for (const via of ['url', 'pool'] as const) {
    it(`(${via}) delivers notifications, warns once per outage, says once that it is back, catches up after each connect`, async () => {
      const clock = new FakeClock();
      const captured = captureLog('info');
      const got: [Channel, string][] = [];
      let caughtUp = 0;
      const url = proxy.url(db.url);
      const pool = via === 'pool' ? createPool(url, { max: 2 }) : undefined;
      const listener: Listener = createListener({
        name: 'test',
        source: pool ? { pool } : { url },
        channels: [Channels.inbox, Channels.outbox],
        onNotify: (channel, payload) => got.push([channel, payload]),
        onListening: () => void caughtUp++,
        meanwhile: 'polling meanwhile',
        clock,
        log: captured.log,
      });
      try {
        await listener.start();
        expect(listener.listening()).toBe(true);
        expect(caughtUp).toBe(1);
        await notify(db.pool, Channels.inbox, '42');
        await notify(db.pool, Channels.decision, 'not listened to');
        await notify(db.pool, Channels.outbox, 'KAFKA_MSG');
        await waitFor(() => got.length === 2, { what: 'two notifications' });
        expect(got).toEqual([['msgx_inbox', '42'], ['msgx_outbox', 'KAFKA_MSG']]);

        proxy.cut();
        await waitFor(() => !listener.listening(), { what: 'the loss noticed' });
        for (let i = 0; i < 3; i++) {
          await waitFor(() => clock.pendingSleepers === 1, { what: `reconnect try ${i + 1} waiting` });
          clock.advance(LISTEN_RETRY_MS); // refused: the proxy does not listen
          await waitFor(() => clock.pendingSleepers === 1 || listener.listening(), { what: 'the try done' });
        }
        expect(listener.listening()).toBe(false);
        await proxy.restore();
        await waitFor(() => clock.pendingSleepers === 1, { what: 'the next try waiting' });
        clock.advance(LISTEN_RETRY_MS);
        await waitFor(() => listener.listening(), { what: 'listening again' });
        expect(caughtUp).toBe(2);
        await notify(db.pool, Channels.inbox, '43');
        await waitFor(() => got.length === 3, { what: 'a notification on the new connection' });

        const said = lines(captured.text()).filter((l) => l.level >= 30).map((l) => l.msg);
        expect(said).toEqual(['test: LISTEN connection lost; polling meanwhile', 'test: listening again']);
      } finally {
        await listener.stop();
        await pool?.end();
      }
      expect(listener.listening()).toBe(false);
    });
  }

  it('starts without a database (warns once, never throws) and listens once it can', async () => {
    proxy.cut();
    const clock = new FakeClock();
    const captured = captureLog('info');
    const listener = createListener({
      name: 'late', source: { url: proxy.url(db.url) }, channels: [Channels.decision], onNotify: () => undefined,
      meanwhile: 'polling meanwhile', clock, log: captured.log,
    });
    try {
      await listener.start();
      expect(listener.listening()).toBe(false);
      await proxy.restore();
      await waitFor(() => clock.pendingSleepers === 1, { what: 'the retry waiting' });
      clock.advance(LISTEN_RETRY_MS);
      await waitFor(() => listener.listening(), { what: 'listening' });
      const said = lines(captured.text()).filter((l) => l.level >= 30).map((l) => l.msg);
      expect(said).toEqual(['late: cannot LISTEN; polling meanwhile', 'late: listening again']);
    } finally {
      await listener.stop();
    }
  });
});
