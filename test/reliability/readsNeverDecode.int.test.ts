/**
 * Reads never decode (docs/security.md §12): a dead or pending multi-MiB message read again and
 * again, a refused compat post of a multi-MiB body, and `message(id){ id }` through aliases. The
 * bodies are attribute floods after a valid META: their full decode is what froze msgx (seconds
 * per read), their head holds META. `decode` is counted through its module: reads and the sender
 * check must never call it, and no read may pull the raw XML it was not asked for.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../../src/platform/clock.ts';
import type { Queryable } from '../../src/platform/db.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import { createPgMailbox } from '../../src/platform/mailbox/pgMailbox.ts';
import { cminmsgsSendRoute } from '../../src/read-api/compat/cminmsgsSend.ts';
import { createHttpServer, type HttpServer } from '../../src/read-api/httpServer.ts';
import { metaXml, msgXml } from '../domain/support/buildXml.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { createHarness, type Harness } from '../read-api/support/harness.ts';
import { insertMessage } from '../read-api/support/fixtures.ts';

const decodeCalls = vi.hoisted(() => ({ n: 0 }));
vi.mock('../../src/domain/codec/decode.ts', async (importOriginal) => {
  const codec = await importOriginal<typeof import('../../src/domain/codec/decode.ts')>();
  return {
    ...codec,
    decode: (...args: Parameters<typeof codec.decode>) => {
      decodeCalls.n++;
      return codec.decode(...args);
    },
  };
});

const TZ = 'Asia/Shanghai';
const MiB = 1024 * 1024;
/** A message of about `bytes`: a valid META, then a flood of distinct attributes (the round-3 attack). */
function flood(sndr: string, seqn: string, bytes: number): string {
  const attrs: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const attr = `a${i.toString(36)}=""`;
    attrs.push(attr);
    size += attr.length + 1;
  }
  return msgXml({ sndr, seqn }, `<BODY ${attrs.join(' ')}/>`);
}

/** Counts the characters of every row the read API receives from PostgreSQL. */
function measuringDb(inner: pg.Pool): Queryable & { chars: number; statements: string[] } {
  const db = {
    chars: 0,
    statements: [] as string[],
    query: (async (text: string, values?: unknown[]) => {
      db.statements.push(text);
      const r = await inner.query(text, values);
      db.chars += JSON.stringify(r.rows).length;
      return r;
    }) as unknown as pg.Pool['query'],
  };
  return db;
}

let db: TestDatabase;
let reads: ReturnType<typeof measuringDb>;
let h: Harness;
const DEAD = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'];
const PENDING = ['11', '12', '13', '14', '15', '16', '17', '18', '19', '20'];
const BIG = 2.2 * MiB;

beforeAll(async () => {
  db = await createTestDatabase('relreads');
  reads = measuringDb(db.pool);
  h = createHarness(db.pool, { db: reads });
  for (const id of DEAD) {
    await insertMessage(db.pool, { id, xml: flood('DEAD', id, BIG), state: 'DEAD', errorClass: 'MALFORMED', lastError: 'not well-formed XML' });
  }
  for (const id of PENDING) await insertMessage(db.pool, { id, xml: flood('PEND', id, BIG), state: 'PENDING' });
  decodeCalls.n = 0;
}, 120_000);
afterAll(async () => db?.drop());

describe('reads of multi-MiB dead and pending messages', () => {
  it('answers a read storm of problems views and aliased META fields without one decode, pulling no raw XML', async () => {
    // The console's problems view (src/read-api/pages/console/views.js), every 3 s.
    const problems = `{ messagesInState(states: ["DEAD", "PENDING"], first: 500) { id state errorClass lastError attempts sender type subtype ingestedAt } }`;
    const aliased = `{ ${[...DEAD, ...PENDING].map((id) => `m${id}: message(id: "${id}") { sender type subtype identityKey }`).join(' ')} }`;
    reads.chars = 0;
    for (let poll = 0; poll < 5; poll++) {
      const p = await h.gql(problems);
      expect(p.errors).toBeUndefined();
      const rows = p.data!.messagesInState as { id: string; sender: string | null; type: string | null }[];
      expect(rows).toHaveLength(20);
      for (const r of rows) {
        if (DEAD.includes(r.id)) expect(r).toMatchObject({ sender: null, type: null, subtype: null }); // decode found no META
        else expect(r).toMatchObject({ sender: 'PEND', type: 'FLOP', subtype: 'ESTT' }); // from the head
      }
      const a = await h.gql(aliased);
      expect(a.errors).toBeUndefined();
      expect(a.data!.m1).toEqual({ sender: null, type: null, subtype: null, identityKey: null });
      expect(a.data!.m11).toEqual({ sender: 'PEND', type: 'FLOP', subtype: 'ESTT', identityKey: 'PEND|FLOP|ESTT|11' });
    }
    expect(decodeCalls.n).toBe(0);
    // Ten polls over twenty 2.2 MB messages: the old reads pulled ~440 MB; the heads are a few hundred bytes each.
    expect(reads.chars).toBeLessThan(1 * MiB);
  });

  it('loads no raw XML for message(id){ id } through 20 aliases, and the whole text only for rawXml', async () => {
    reads.chars = 0;
    reads.statements.length = 0;
    const ids = [...DEAD, ...PENDING];
    const r = await h.gql(`{ ${ids.map((id) => `m${id}: message(id: "${id}") { id }`).join(' ')} }`);
    expect(r.errors).toBeUndefined();
    expect(Object.values(r.data!).map((m: any) => m.id)).toEqual(ids);
    expect(reads.chars).toBeLessThan(64 * 1024);
    expect(reads.statements.join('\n')).not.toMatch(/raw_xml AS "rawXml"/);

    const raw = await h.gql(`{ message(id: "11") { rawXml } }`);
    expect(raw.data!.message.rawXml).toBe(flood('PEND', '11', BIG));
    // rawXml keeps its cost: 21 of them are refused before any is loaded.
    reads.statements.length = 0;
    const many = await h.gql(`{ ${ids.concat('1').map((id, i) => `r${i}: message(id: "${id}") { rawXml }`).join(' ')} }`);
    expect(many.errors?.[0]?.extensions?.code).toBe('COST_LIMIT_EXCEEDED');
    expect(reads.statements).toEqual([]);
    expect(decodeCalls.n).toBe(0);
  });
});

describe('MSGX_COMPAT_SENDERS on a multi-MiB body', () => {
  let http: HttpServer;
  let url: string;
  beforeAll(async () => {
    http = createHttpServer({
      host: '127.0.0.1', port: 0, log: silentLogger,
      routes: [cminmsgsSendRoute({ mailbox: createPgMailbox(db.pool, TZ), clock: new FakeClock('2025-03-14T01:02:03Z'), log: silentLogger, senders: ['AODB'], tz: TZ })],
    });
    await http.start();
    url = `http://127.0.0.1:${http.port()}/cminmsgs/send`;
  });
  afterAll(async () => http?.stop());
  const post = (body: string) => fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/xml' } });

  it('refuses a sender not listed from the head of the body, without decoding it', async () => {
    const body = flood('EVIL', '1', 6 * MiB);
    const started = performance.now();
    const res = await post(body);
    const ms = performance.now() - started;
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: string }).error).toMatch(/"EVIL".*MSGX_COMPAT_SENDERS/);
    expect(decodeCalls.n).toBe(0);
    // Reading 6 MiB from loopback and one pass over 64 Ki characters; its full decode took about a minute.
    expect(ms).toBeLessThan(15_000);
  });

  it('accepts a listed sender and refuses a body whose META is missing or past the scanned head', async () => {
    expect((await post(flood('AODB', '2', 1 * MiB))).status).toBe(200);
    expect((await post(`<MSG>${' '.repeat(64 * 1024)}${metaXml({})}</MSG>`)).status).toBe(403);
    expect((await post('<MSG><FLOP/></MSG>')).status).toBe(403);
    expect(decodeCalls.n).toBe(0);
  });
});
