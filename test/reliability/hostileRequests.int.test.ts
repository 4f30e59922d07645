/**
 * The hostile-request suite (docs/security.md): attacks against a real `msgx start` process (the entry of
 * `npm start`) on the MariaDB mailbox path, then proof that the writer still decides. Each case
 * is one row of the attack table in docs/security.md; keep them in step.
 */
import net from 'node:net';
import type mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/platform/http/securityHeaders.ts';
import { spawnMsgx, type MsgxProcess } from '../support/msgxProcess.ts';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../support/databases.ts';
import { waitFor } from '../support/waitFor.ts';
import { adft, estt } from '../write/support/messages.ts';

let db: TestDatabase;
let my: TestMailbox;
let app: MsgxProcess;
let base: string;
let port: number;

beforeAll(async () => {
  [db, my] = await Promise.all([createTestDatabase('hostile'), createTestMailbox('hostile')]);
  app = spawnMsgx(['start'], {
    MSGX_DATABASE_URL: db.url,
    MSGX_MAILBOX_MYSQL_URL: my.url,
    MSGX_HTTP_PORT: '0',
    MSGX_POLL_INTERVAL_MS: '100',
    MSGX_GAP_TIMEOUT_MS: '300',
    MSGX_BACKOFF_MS: '50',
    MSGX_LOG_LEVEL: 'info',
  });
  await app.waitForLine('"msg":"msgx started"', { timeoutMs: 60_000 });
  port = Number(/"port":(\d+)[^\n]*"msg":"http listening"/.exec(app.output())![1]);
  base = `http://127.0.0.1:${port}`;
}, 90_000);

afterAll(async () => {
  await app?.stop();
  await Promise.all([db?.drop(), my?.drop()]);
});

/** One raw HTTP/1.1 exchange on a fresh socket (for request lines fetch() would refuse to send). */
function rawRequest(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (b) => (out += b.toString('latin1')));
    socket.on('end', () => resolve(out));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
    socket.write(text);
  });
}

interface Gql {
  status: number;
  headers: Headers;
  body: { data?: Record<string, any> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

async function gql(query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Gql> {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Gql['body'] };
}

const codes = (r: Gql) => (r.body.errors ?? []).map((e) => e.extensions?.code);

async function alive(): Promise<void> {
  const res = await fetch(`${base}/healthz`);
  expect(res.status).toBe(200);
  expect(app.child.exitCode).toBeNull();
}

describe('hostile requests against msgx start (MariaDB mailbox)', () => {
  it('answers a malformed request line with 400 and keeps running', async () => {
    const answer = await rawRequest('GET //[ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer.toLowerCase()).toContain('x-content-type-options: nosniff');
    await alive();
  });

  it('refuses oversized headers (431) and keeps running', async () => {
    const answer = await rawRequest(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\nConnection: close\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    await alive();
  });

  it('refuses the alias + negative-first cost bypass under @skip', async () => {
    const aliases = Array.from({ length: 100 }, (_, i) => `f${i}: flights(first: 500) { totalCount }`).join(' ');
    const r = await gql(`{ neg: flights(first: -48000) @skip(if: true) { totalCount } ${aliases} }`);
    expect(r.body.data ?? null).toBeNull();
    expect(codes(r)).toContain('PAGE_SIZE_EXCEEDED');
    expect(codes(r)).toContain('COST_LIMIT_EXCEEDED');
    const negOnly = await gql(`{ a: flights(first: -1) { totalCount } }`);
    expect(codes(negOnly)).toEqual(['PAGE_SIZE_EXCEEDED']);
  });

  it('answers a 24-level fragment tree in under 2 s', async () => {
    let frags = 'fragment F0 on Flight { flid stands { code } }\n';
    for (let i = 1; i <= 24; i++) frags += `fragment F${i} on Flight { a${i}: flid ...F${i - 1} b${i}: gates { code } ...F${i - 1} }\n`;
    const started = Date.now();
    const r = await gql(`{ flights(first: 10) { edges { node { ...F24 } } } }\n${frags}`);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(r.body.data ?? null).toBeNull();
    expect(codes(r)).toContain('COST_LIMIT_EXCEEDED');
    await alive();
  });

  it('refuses a document of 100,000 tokens before validating it', async () => {
    const started = Date.now();
    const r = await gql(`{ ${'__typename '.repeat(100_000)}}`);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(r.body.errors?.[0]?.message).toMatch(/more that 20000 tokens/);
    await alive();
  });

  it('refuses 300 rawXml aliases', async () => {
    const r = await gql(`{ ${Array.from({ length: 300 }, (_, i) => `m${i}: message(id: "${i + 1}") { rawXml }`).join(' ')} }`);
    expect(r.body.data ?? null).toBeNull();
    expect(codes(r)).toContain('COST_LIMIT_EXCEEDED');
    expect(r.body.errors!.map((e) => e.message).join('\n')).toMatch(/aliased fields; the limit is 100/);
  });

  it('refuses a cross-site text/plain post to /cminmsgs/send and writes nothing', async () => {
    const before = await cminmsgsCount();
    const attempts: Record<string, string>[] = [
      { 'content-type': 'text/plain', origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
      { 'content-type': 'text/plain', 'sec-fetch-site': 'cross-site' },
      { 'content-type': 'text/plain', origin: 'null' },
    ];
    for (const headers of attempts) {
      const res = await fetch(`${base}/cminmsgs/send`, { method: 'POST', headers, body: adft(1, '990001') });
      expect(res.status).toBe(403);
    }
    expect(await cminmsgsCount()).toBe(before);
  });

  it('answers no CORS to a foreign origin', async () => {
    const pre = await fetch(`${base}/graphql`, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
    const r = await gql('{ pipeline { logPosition } }', undefined, { origin: 'http://evil.example' });
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses bad cursors, dates, instants and ids with BAD_USER_INPUT', async () => {
    const cases = [
      '{ flights(after: "not-a-cursor") { totalCount } }',
      `{ flights(after: "${Buffer.from(JSON.stringify(['flights', 'x', 'y', 'z'])).toString('base64url')}") { totalCount } }`,
      `{ flightHistory(flid: "1", after: "${Buffer.from(JSON.stringify(['history', 'abc'])).toString('base64url')}") { edges { cursor } } }`,
      '{ flights(operationDay: "2025-02-30") { totalCount } }',
      '{ flights(operationDay: "99999-01-01") { totalCount } }',
      '{ flight(flid: "1", asOf: "2025-02-30T10:00:00Z") { flid } }',
      '{ flight(flid: "1", asOf: "2025-01-01T25:00:00Z") { flid } }',
      '{ message(id: "99999999999999999999") { id } }',
      '{ message(id: "-1") { id } }',
      '{ flight(flid: "9223372036854775808") { flid } }',
    ];
    for (const q of cases) {
      const r = await gql(q);
      expect({ q, codes: codes(r) }).toEqual({ q, codes: ['BAD_USER_INPUT'] });
    }
    expect(app.output()).not.toMatch(/"level":(50|60)[^\n]*BAD_USER_INPUT/);
  });

  it('puts a strict CSP, nosniff and frame denial on every response', async () => {
    const responses = await Promise.all([
      fetch(`${base}/healthz`),
      fetch(`${base}/readyz`),
      fetch(`${base}/nowhere`),
      fetch(`${base}/metrics`),
      fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' }),
      fetch(`${base}/cminmsgs/send`, { method: 'POST', headers: { 'content-type': 'image/png' }, body: 'x' }),
    ]);
    for (const res of responses) {
      expect({ url: res.url, csp: res.headers.get('content-security-policy') }).toEqual({ url: res.url, csp: CONTENT_SECURITY_POLICY });
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
      expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
      await res.arrayBuffer();
    }
  });

  it('ingests late commits into 1,200 expired gaps, all of them', async () => {
    // a row ingested first: ids below the first row a fresh cursor sees are history, not gaps
    await my.pool.query('INSERT INTO CMINMSGS (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED) VALUES (?, NOW())', [adft(999, '990100')]);
    await waitFor(async () => Number((await db.pool.query('SELECT count(*) AS n FROM inbox_message')).rows[0].n) > 0, { what: 'first row ingested' });
    const held = await my.pool.getConnection();
    let ids: string[];
    try {
      await held.beginTransaction();
      const xml = Array.from({ length: 1200 }, (_, i) => estt(1000 + i, '990100', '14MAR250812'));
      const [res] = await held.query<mysql.ResultSetHeader>(
        'INSERT INTO CMINMSGS (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED) VALUES ' + xml.map(() => '(?, NOW())').join(','),
        xml,
      );
      const first = BigInt(res.insertId);
      ids = Array.from({ length: 1200 }, (_, i) => String(first + BigInt(i)));
      // a committed row above them: the 1,200 ids become gaps, which expire after 300 ms
      await my.pool.query('INSERT INTO CMINMSGS (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED) VALUES (?, NOW())', [adft(2000, '990100')]);
      await waitFor(
        async () => Number((await db.pool.query(`SELECT count(*) AS n FROM inbox_gap WHERE closed_by = 'expired' AND gap_id = ANY($1::bigint[])`, [ids])).rows[0].n) === 1200,
        { what: '1,200 expired gaps', timeoutMs: 30_000 },
      );
      await held.commit();
    } finally {
      held.release();
    }
    await waitFor(
      async () => Number((await db.pool.query('SELECT count(*) AS n FROM inbox_message WHERE msg_id = ANY($1::bigint[])', [ids])).rows[0].n) === 1200,
      { what: 'all 1,200 late rows ingested', timeoutMs: 30_000 },
    );
  });

  it('still decides after all of it', async () => {
    await alive();
    const res = await fetch(`${base}/cminmsgs/send`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: adft(5000, '990200') });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    await waitFor(async () => (await gql(`{ message(id: "${id}") { state } }`)).body.data?.message?.state === 'SUCCEEDED', {
      what: 'the new message decided',
      timeoutMs: 30_000,
    });
    const flight = await waitFor(async () => (await gql('{ flight(flid: "990200") { flid deleted } }')).body.data?.flight, {
      what: 'the flight projected',
    });
    expect(flight).toEqual({ flid: '990200', deleted: false });
  });
});

async function cminmsgsCount(): Promise<number> {
  const [rows] = await my.pool.query<(mysql.RowDataPacket & { n: number })[]>('SELECT COUNT(*) AS n FROM CMINMSGS');
  return Number(rows[0]!.n);
}
