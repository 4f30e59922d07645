import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import { createPgMailbox } from '../../src/platform/mailbox/pgMailbox.ts';
import { cminmsgsSendRoute, MAX_MESSAGE_BYTES } from '../../src/read-api/compat/cminmsgsSend.ts';
import { createHttpServer, type HttpServer } from '../../src/read-api/httpServer.ts';
import { fileDatabase } from '../support/fileDatabase.ts';

const db = fileDatabase('rapicompat');
let http: HttpServer;
let url: string;
const XML = '<?xml version="1.0" encoding="UTF-8"?><MSG><META><SNDR>AODB</SNDR></META><FLOP>延误 Delayed</FLOP></MSG>';

beforeAll(async () => {
  const clock = new FakeClock('2025-03-14T01:02:03Z');
  http = createHttpServer({
    host: '127.0.0.1', port: 0, log: silentLogger,
    routes: [cminmsgsSendRoute({ mailbox: createPgMailbox(db.pool, 'Asia/Shanghai'), clock, log: silentLogger })],
  });
  await http.start();
  url = `http://127.0.0.1:${http.port()}/cminmsgs/send`;
});
afterAll(async () => {
  await http?.stop();
});

const post = (body: BodyInit, type?: string) =>
  fetch(url, { method: 'POST', body, headers: type ? { 'content-type': type } : {} });

it.each(['application/xml', 'text/xml; charset=UTF-8', 'text/plain'])('writes a %s body to CMINMSGS and answers its id', async (type) => {
  const res = await post(XML, type);
  expect(res.status).toBe(200);
  const { id } = (await res.json()) as { id: string };
  expect(id).toMatch(/^\d+$/);
  const { rows } = await db.pool.query(
    "SELECT cminmsgs_clob_msg AS xml, to_char(cminmsgs_date_received, 'YYYY-MM-DD HH24:MI:SS') AS received FROM mailbox.cminmsgs WHERE cminmsgs_id = $1",
    [id],
  );
  expect(rows).toEqual([{ xml: XML, received: '2025-03-14 09:02:03' }]); // airport wall time of the clock
});

it('refuses other content types with 415 and a reason', async () => {
  for (const type of ['application/json', 'application/octet-stream', undefined]) {
    const res = await post(new TextEncoder().encode(XML), type); // bytes: fetch adds no Content-Type of its own
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: string }).error).toMatch(/Content-Type/);
  }
  const latin = await post(XML, 'text/xml; charset=ISO-8859-1');
  expect(latin.status).toBe(415);
  expect(((await latin.json()) as { error: string }).error).toMatch(/UTF-8/);
});

it('refuses bytes that are not UTF-8, binary content and an empty body with 400', async () => {
  const notUtf8 = await post(new Uint8Array([0x3c, 0x4d, 0xff, 0xfe, 0x3e]), 'text/xml');
  expect(notUtf8.status).toBe(400);
  expect(((await notUtf8.json()) as { error: string }).error).toMatch(/not valid UTF-8/);
  const binary = await post(new Uint8Array([0x3c, 0x4d, 0x00, 0x01, 0x3e]), 'application/xml');
  expect(binary.status).toBe(400);
  expect(((await binary.json()) as { error: string }).error).toMatch(/not text/);
  const empty = await post('  \n', 'text/plain');
  expect(empty.status).toBe(400);
  expect(((await empty.json()) as { error: string }).error).toMatch(/empty/);
  const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM mailbox.cminmsgs');
  expect(rows[0].n).toBe(3); // only the three accepted ones above
});

it('refuses a body over 16 MiB with 413, and accepts one of exactly 16 MiB', async () => {
  const over = await post('x'.repeat(MAX_MESSAGE_BYTES + 1), 'text/plain').catch((e: unknown) => e);
  expect(over instanceof Response ? over.status : over).toBe(413);
  if (over instanceof Response) expect(((await over.json()) as { error: string }).error).toMatch(/larger than 16777216 bytes/);
  const exact = await post('y'.repeat(MAX_MESSAGE_BYTES), 'text/plain');
  expect(exact.status).toBe(200);
});

it('answers 405 on GET', async () => {
  expect((await fetch(url)).status).toBe(405);
});
