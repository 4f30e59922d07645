/**
 * Bad input through the whole writer (docs/recovery.md): ≥ 5,000 messages — operational traffic mixed with
 * samples of every codec fuzz family and bodies of several MiB — written to MariaDB CMINMSGS,
 * then ingest → pump → projections → backfill as `msgx start` wires them. Nothing crashes or hangs;
 * every message ends with exactly one terminal decision in the state its decode class gives
 * (decoded → SUCCEEDED/SKIPPED, MALFORMED → DEAD at once, CODEC_ERROR/UNSUPPORTED → PARKED at once
 * with that class); the flight projection catches up with the whole log; no
 * external entity content is stored anywhere.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decode } from '../../src/domain/codec/decode.ts';
import { createProjectionServices } from '../../src/projections/projectionServices.ts';
import type { Service } from '../../src/platform/service.ts';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../support/databases.ts';
import { waitFor } from '../support/waitFor.ts';
import {
  decisions, insertCminmsgs, insertCminmsgsBulk, startWriter, terminalCounts, testRuntime, unfinished,
} from '../write/support/writeHarness.ts';
import { pipelineTraffic } from './support/pipelineTraffic.ts';

const SOAK = process.env.MSGX_SOAK === '1';
const TOTAL = SOAK ? 20_000 : 5_000;
const SEED = Number(process.env.MSGX_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const TZ = 'Asia/Shanghai';
const ENV = { MSGX_MAX_ATTEMPTS: '2', MSGX_BACKOFF_MS: '10', MSGX_POLL_INTERVAL_MS: '50', MSGX_INGEST_BATCH: '500' };

interface Row { msg_id: string; state: string; error_class: string | null; cause_class: string | null; raw_xml: string }

function expectedState(raw: string): { state: string[]; errorClass: string | null; cause: string | null; decoded: string } {
  const r = decode(raw, { tz: TZ });
  if (r.ok) return { state: ['SUCCEEDED', 'SKIPPED'], errorClass: null, cause: null, decoded: 'ok' };
  if (r.errorClass === 'MALFORMED') return { state: ['DEAD'], errorClass: 'MALFORMED', cause: null, decoded: r.errorClass };
  return { state: ['PARKED'], errorClass: r.errorClass, cause: null, decoded: r.errorClass };
}

describe('bad input through the whole writer', () => {
  let db: TestDatabase;
  let my: TestMailbox;
  let dir: string;
  const planted = { path: '', text: `PLANTED-SECRET-${Math.random().toString(36).slice(2)}` };

  beforeAll(async () => {
    [db, my] = await Promise.all([createTestDatabase('fuzzpipe'), createTestMailbox('fuzzpipe')]);
    dir = await mkdtemp(path.join(tmpdir(), 'msgx-fuzzpipe-'));
    planted.path = path.join(dir, 'secret.txt');
    await writeFile(planted.path, planted.text);
  });
  afterAll(async () => {
    await Promise.all([db?.drop(), my?.drop()]);
    await rm(dir, { recursive: true, force: true });
  });

  it(`ends every one of ${TOTAL.toLocaleString('en')}+ messages classified, once`, { timeout: SOAK ? 1_800_000 : 300_000 }, async () => {
    const started = Date.now();
    const { messages, withNul } = pipelineTraffic(TOTAL, SEED, planted);
    // Multi-row inserts stay far below max_allowed_packet; the MiB-sized bodies go one by one.
    const small: string[] = [];
    const flush = async () => { await insertCminmsgsBulk(my, small.splice(0), 50); };
    for (const m of messages) {
      if (m.length > 256 * 1024) {
        await flush();
        await insertCminmsgs(my, m);
      } else {
        small.push(m);
      }
    }
    await flush();

    const rt = testRuntime(db, my, { env: ENV });
    const writer = await startWriter(rt);
    const projections: Service[] = createProjectionServices(rt).services;
    for (const s of projections) await s.start();
    try {
      await waitFor(async () => {
        const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM proc_state');
        return rows[0]!.n === messages.length && (await unfinished(db)) === 0;
      }, { timeoutMs: SOAK ? 1_500_000 : 240_000, intervalMs: 200, what: `all ${messages.length} messages terminal` });
      await waitFor(async () => {
        const { rows } = await db.pool.query<{ lag: string }>(
          `SELECT (SELECT last_position FROM pipeline_lock) - position AS lag FROM projection_checkpoint WHERE name = 'flights'`);
        return rows[0]?.lag === '0';
      }, { timeoutMs: 60_000, what: 'flight projection caught up' });
    } finally {
      for (const s of [...projections].reverse()) await s.stop();
      await writer.stop();
      await rt.close();
    }

    const { rows } = await db.pool.query<Row>(
      `SELECT p.msg_id, p.state, p.error_class, p.cause_class, i.raw_xml
         FROM proc_state p JOIN inbox_message i USING (msg_id) ORDER BY p.msg_id`);
    const counts: Record<string, number> = {};
    const wrong: string[] = [];
    let altered = 0;
    rows.forEach((row, i) => {
      if (row.raw_xml !== messages[i]) altered++; // e.g. a lone surrogate stored as U+FFFD
      // Judge by the text the pump really decoded.
      const want = expectedState(row.raw_xml);
      const key = `${want.decoded} → ${row.state}${row.error_class ? `(${row.error_class}${row.cause_class ? `/${row.cause_class}` : ''})` : ''}`;
      counts[key] = (counts[key] ?? 0) + 1;
      if (!want.state.includes(row.state) || row.error_class !== want.errorClass || row.cause_class !== want.cause) {
        if (wrong.length < 10) wrong.push(`${row.msg_id}: ${key}; input ${JSON.stringify(row.raw_xml.slice(0, 300))}`);
      }
    });
    process.stdout.write(
      `\npipeline fuzz, seed ${SEED}: ${rows.length} messages in ${((Date.now() - started) / 1000).toFixed(1)} s ` +
      `(${withNul} generated inputs with U+0000 left to the dedicated test; ${altered} changed by MariaDB storage)\n` +
      Object.entries(counts).sort().map(([k, n]) => `  ${k.padEnd(40)} ${n}`).join('\n') + '\n');

    expect(rows.length).toBe(messages.length);
    expect(rows.length).toBeGreaterThanOrEqual(TOTAL);
    expect(wrong).toEqual([]);
    const log = await decisions(db);
    const perMessage = terminalCounts(log);
    expect(perMessage.size).toBe(messages.length);
    expect([...perMessage.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    expect(log.some((d) => JSON.stringify(d.payload).includes(planted.text))).toBe(false);
    const leaked = await db.pool.query<{ n: number }>(
      `SELECT ((SELECT count(*) FROM proc_state WHERE last_error LIKE '%' || $1 || '%')
             + (SELECT count(*) FROM flight_schd WHERE public_remark LIKE '%' || $1 || '%'))::int AS n`, [planted.text]);
    expect(leaked.rows[0]!.n).toBe(0);
  });

  // PostgreSQL text cannot hold U+0000 (SQLSTATE 22021), MariaDB MEDIUMTEXT can: such a row must
  // not jam ingest for every row behind it (see docs/security.md, "Known gaps").
  it('does not let a CMINMSGS row holding U+0000 stop ingest for the rows behind it', { timeout: 60_000 }, async () => {
    const before = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM proc_state');
    const ids = [
      await insertCminmsgs(my, '<MSG><META><SNDR>AODB</SNDR><SEQN>1\u0000</SEQN></META></MSG>'),
      await insertCminmsgs(my, 'not xml'),
    ];
    const rt = testRuntime(db, my, { env: ENV });
    const writer = await startWriter(rt);
    try {
      await waitFor(async () => {
        const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM proc_state');
        return rows[0]!.n === before.rows[0]!.n + ids.length && (await unfinished(db)) === 0;
      }, { timeoutMs: 20_000, what: 'both rows ingested and decided' });
    } finally {
      await writer.stop();
      await rt.close();
    }
    const { rows } = await db.pool.query<{ state: string; error_class: string }>(
      'SELECT state, error_class FROM proc_state WHERE msg_id = ANY($1::bigint[]) ORDER BY msg_id', [ids]);
    expect(rows).toEqual([{ state: 'DEAD', error_class: 'MALFORMED' }, { state: 'DEAD', error_class: 'MALFORMED' }]);
  });
});
