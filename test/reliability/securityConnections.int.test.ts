/**
 * Connection slots and upload memory (docs/security.md §2 HTTP, §12 rows "SSE flood", "slots
 * full", "slowloris", "held uploads"), against a real `msgx start` with smaller caps so that the
 * floods stay short: 300 connections, 40 subscriptions, a 32 MiB upload budget. Clients are told
 * apart by address; the loopback net 127.0.0.0/8 gives each test its own "clients".
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnMsgx, type MsgxProcess } from '../support/msgxProcess.ts';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../support/databases.ts';
import { waitFor } from '../support/waitFor.ts';
import { estt } from '../write/support/messages.ts';

const MAX_CONNECTIONS = 300;
const SUBSCRIPTIONS_MAX = 40;
const SUBSCRIPTIONS_PER_CLIENT = 32; // the default
const MIB = 1024 * 1024;

let db: TestDatabase;
let my: TestMailbox;
let app: MsgxProcess;
let port: number;
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  [db, my] = await Promise.all([createTestDatabase('conns'), createTestMailbox('conns')]);
  app = spawnMsgx(['start'], {
    MSGX_DATABASE_URL: db.url,
    MSGX_MAILBOX_MYSQL_URL: my.url,
    MSGX_HTTP_PORT: '0',
    MSGX_POLL_INTERVAL_MS: '100',
    MSGX_HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
    MSGX_SUBSCRIPTIONS_MAX: String(SUBSCRIPTIONS_MAX),
    MSGX_UPLOAD_BUDGET_BYTES: String(32 * MIB),
    MSGX_LOG_LEVEL: 'info',
  });
  await app.waitForLine('"msg":"msgx started"', { timeoutMs: 60_000 });
  port = Number(/"port":(\d+)[^\n]*"msg":"http listening"/.exec(app.output())![1]);
}, 90_000);

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await app?.stop();
  await Promise.all([db?.drop(), my?.drop()]);
});

interface Exchange {
  readonly socket: net.Socket;
  /** The status of the answer (0: the connection closed without one). */
  readonly status: Promise<number>;
  readonly head: Promise<string>;
  readonly closed: Promise<void>;
}

/** A request `text` from local address `from`, on its own socket (kept open until the server or the test closes it). */
function send(from: string, text: string): Exchange {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress: from });
  sockets.add(socket);
  let data = '';
  let resolveHead!: (h: string) => void;
  const head = new Promise<string>((r) => (resolveHead = r));
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  socket.on('data', (b) => {
    data += b.toString('latin1');
    if (data.includes('\r\n\r\n')) resolveHead(data);
  });
  socket.on('error', () => undefined);
  void closed.then(() => {
    sockets.delete(socket);
    resolveHead(data);
  });
  if (text) socket.write(text);
  const status = head.then((h) => Number(/^HTTP\/1\.1 (\d{3})/.exec(h)?.[1] ?? 0));
  return { socket, status, head, closed };
}

const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: msgx\r\n${extra}\r\n`;
const getOnce = (from: string, path: string) => send(from, get(path, 'Connection: close\r\n')).status;
const post = (length: number, body = '') =>
  `POST /cminmsgs/send HTTP/1.1\r\nHost: msgx\r\nContent-Type: application/xml\r\nContent-Length: ${length}\r\n\r\n${body}`;

const SUBSCRIBE = `/graphql?query=${encodeURIComponent('subscription { flightChanged { flid } }')}`;

/** Close the test's sockets and wait until the server has let go of them too (a plain request from `from` is served). */
async function release(from: string): Promise<void> {
  for (const s of sockets) s.destroy();
  await waitFor(async () => (await getOnce(from, '/no-such-page')) === 404, { what: 'slots free again', timeoutMs: 30_000 });
}

describe('connection slots (docs/security.md, connections)', () => {
  it('SSE flood: 1,000 subscriptions from one address get the per-client share, the rest 429/503 at once', async () => {
    const flood = Array.from({ length: 1000 }, () => send('127.0.0.10', get(SUBSCRIBE, 'Accept: text/event-stream\r\n')));
    const refused = () => Promise.all(flood.map((e) => Promise.race([e.status, Promise.resolve(-1)])));
    // Every attempt past the share is answered at once; the share (32) stays open as live streams.
    await waitFor(async () => (await refused()).filter((s) => s === 429 || s === 503).length === 1000 - SUBSCRIPTIONS_PER_CLIENT, {
      what: '968 refusals',
      timeoutMs: 30_000,
    });
    const statuses = await refused();
    expect(statuses.filter((s) => s === 200 || s === -1)).toHaveLength(SUBSCRIPTIONS_PER_CLIENT);
    expect(await flood[statuses.indexOf(429)]!.head).toMatch(/retry-after: 5/i);

    // A second client gets what is left of the global cap (40 − 32), then 503.
    const second = Array.from({ length: 20 }, () => send('127.0.0.11', get(SUBSCRIBE, 'Accept: text/event-stream\r\n')));
    await waitFor(async () => (await Promise.all(second.map((e) => Promise.race([e.status, Promise.resolve(-1)])))).filter((s) => s === 503).length === 12, {
      what: '12 refusals of the global cap',
    });
    // yoga streams multipart/mixed too: counted the same way.
    expect(await send('127.0.0.11', get(SUBSCRIBE, 'Accept: multipart/mixed\r\n')).status).toBe(503);

    // Health, readiness and the compat entry are served meanwhile, also to the flooding address.
    expect(await getOnce('127.0.0.10', '/healthz')).toBe(200);
    expect(await getOnce('127.0.0.12', '/readyz')).toBe(200);
    const xml = estt(1, '9001', '14MAR251000');
    expect(await send('127.0.0.12', post(Buffer.byteLength(xml), xml).replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n')).status).toBe(200);
    await release('127.0.0.10');
  });

  it('slots full: /healthz and /readyz are answered, other paths get 503 at once', async () => {
    // 300 connections from three addresses, each holding a request whose body never comes (60 s request timeout).
    const holders = ['127.0.0.20', '127.0.0.21', '127.0.0.22'].flatMap((from) => Array.from({ length: 100 }, () => send(from, post(100))));
    await waitFor(async () => (await getOnce('127.0.0.23', '/no-such-page')) === 503, { what: 'the server full', timeoutMs: 30_000 });
    expect(await getOnce('127.0.0.23', '/healthz')).toBe(200);
    expect(await getOnce('127.0.0.23', '/readyz')).toBe(200);
    const refused = send('127.0.0.23', post(10, '<x/>').replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'));
    expect(await refused.status).toBe(503);
    expect(await refused.head).toMatch(/too many connections/);
    expect(holders.length).toBe(MAX_CONNECTIONS);
    await release('127.0.0.23');
  });

  it('slowloris: 1,000 trickling connections are cut within the header timeout; health is answered throughout', async () => {
    const trickle = Array.from({ length: 1000 }, (_, i) => send(`127.0.0.${30 + (i % 8)}`, 'GET / HTTP/1.1\r\nX-Slow: '));
    const drip = setInterval(() => {
      for (const e of trickle) if (!e.socket.destroyed) e.socket.write('a');
    }, 500);
    try {
      await waitFor(async () => (await getOnce('127.0.0.40', '/no-such-page')) === 503, { what: 'the slots taken', timeoutMs: 30_000 });
      for (let i = 0; i < 3; i++) expect(await getOnce('127.0.0.40', '/healthz')).toBe(200);
      // headersTimeout 10 s, checked every second: all of them gone well before Node's default (60 s, checked every 30 s).
      await waitFor(() => trickle.every((e) => e.socket.destroyed), { what: 'every trickling connection cut', timeoutMs: 25_000, intervalMs: 200 });
    } finally {
      clearInterval(drip);
    }
    expect(await getOnce('127.0.0.30', '/no-such-page')).toBe(404);
  });
});

describe('upload budget (docs/security.md, upload budget)', () => {
  it('held 16 MiB bodies take the budget; the next upload gets 503 with Retry-After before its body is read', async () => {
    const held = [send('127.0.0.50', post(16 * MIB, '<MSG>')), send('127.0.0.51', post(16 * MIB, '<MSG>'))];
    await waitFor(async () => (await send('127.0.0.52', post(16 * MIB)).status) === 503, { what: 'the budget taken', timeoutMs: 30_000 });
    const over = send('127.0.0.52', post(16 * MIB));
    expect(await over.status).toBe(503);
    expect(await over.head).toMatch(/retry-after: 5/i);
    expect(await over.head).toMatch(/MSGX_UPLOAD_BUDGET_BYTES/);
    await over.closed; // answered and closed: the body was never waited for
    held[0]!.socket.destroy();
    const xml = estt(2, '9001', '14MAR251100');
    await waitFor(async () => (await send('127.0.0.52', post(Buffer.byteLength(xml), xml)).status) === 200, { what: 'an upload served again' });
    expect(app.exited()).toBeNull();
  });
});
