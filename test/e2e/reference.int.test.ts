/**
 * Reference data through the whole assembled app (CMINMSGS → ingest → pump → reference projector →
 * GraphQL), beyond corpus 05: UPD clearing and adding, DEL of known and unknown keys, keyless
 * records, an empty RESP, search, seasons replaced one at a time; VIPL personal data withheld from
 * the API, from message(id).rawXml and its decisions, and from every log line (trace level);
 * `rebuild reference` gives the same rows.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assemble, type App } from '../../src/cli/assemble.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { openRuntime, type Runtime } from '../../src/platform/runtime.ts';
import { rebuildReference } from '../../src/projections/reference/rebuildReference.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import { captureLog, type CapturedLog } from '../reliability/support/captureLog.ts';
import { fileDatabase } from '../support/fileDatabase.ts';
import { waitFor } from '../support/waitFor.ts';
import { drained, httpGql, type Gql } from './support/scenarioRunner.ts';

const db = fileDatabase('e2eref');
let rt: Runtime;
let app: App;
let dataDir: string;
let gql: Gql;
let base: string;
let captured: CapturedLog;
const ids: Record<string, string> = {};
let seqn = 410000;

/** Personal values of the VIPL records: none may leave msgx. */
const PERSONAL = ['Weiqiang', 'Zhangsanfeng', '13912345678', 'Suite 1808', '张三丰'];

const msg = (type: string, styp: string, body: string) => `<?xml version="1.0" encoding="UTF-8"?>
<MSG xmlns:xsi = "http://www.w3.org/2001/XMLSchema-instance">
\t<META>
\t\t<SNDR>AODB</SNDR>
\t\t<SEQN>${seqn++}</SEQN>
\t\t<DTTM>20250321050000</DTTM>
\t\t<TYPE>${type}</TYPE>
\t\t<STYP>${styp}</STYP>
\t</META>
\t${body}
</MSG>`;

const season = (name: string, flights: string) =>
  `<SCHS><SNAM>${name}</SNAM><SDAT>27OCT24</SDAT><EDAT>29MAR25</EDAT>${flights}</SCHS>`;
const fltr = (airline: string, no: string, dir: string, dyop: string, from = '27OCT24', to = '29MAR25') =>
  `<FLTR><ALCD>${airline}</ALCD><FLNO>${no}</FLNO><MVIN>${dir}</MVIN><STDT>${from}</STDT><EDDT>${to}</EDDT><DYOP>${dyop}</DYOP><SCHT>0930</SCHT></FLTR>`;

const MESSAGES: [string, string][] = [
  ['airl', msg('AIRL', 'DNLD', `<RECS>4</RECS>
    <AIRL><ITOP>CA</ITOP><ONAM>AIR CHINA</ONAM><ONMC>中国国际航空</ONMC><CTRY>PRC</CTRY><OGRP>STAR ALLIANCE</OGRP></AIRL>
    <AIRL><ITOP>MU</ITOP><ONAM>CHINA EASTERN</ONAM><ONMC>东方航空</ONMC><CTRY>PRC</CTRY></AIRL>
    <AIRL><ONAM>NO KEY AIRLINES</ONAM></AIRL>
    <AIRL><ITOP>HU</ITOP><ONAM>HAINAN AIRLINES</ONAM><ONMC>海南航空</ONMC></AIRL>`)],
  ['vipl', msg('VIPL', 'ADD', `<VIPL><VPCD>VC2001</VPCD><VFNM>Weiqiang</VFNM><VLNM>Zhangsanfeng</VLNM><VPNC>张三丰</VPNC><VRNK>2</VRNK>
    <VCMN>13912345678</VCMN><VRMK>Suite 1808</VRMK></VIPL>`)],
  ['viplUpd', msg('VIPL', 'UPD', '<VIPL><VPCD>VC2001</VPCD><VCMN>13912345678</VCMN><VRNK>1</VRNK></VIPL>')],
  ['viplKeyless', msg('VIPL', 'ADD', '<VIPL><VFNM>Weiqiang</VFNM><VCMN>13912345678</VCMN></VIPL>')],
  ['upd', msg('AIRL', 'UPD', '<AIRL><ITOP>MU</ITOP><CTRY/><ICOP>CES</ICOP><OGRP>SKYTEAM</OGRP></AIRL>')],
  ['del', msg('AIRL', 'DEL', '<AIRL><ITOP>HU</ITOP><ONAM>ignored</ONAM></AIRL><AIRL><ITOP>ZZ</ITOP></AIRL>')],
  ['delUnknown', msg('AIRL', 'DEL', '<AIRL><ITOP>ZZ</ITOP></AIRL>')],
  ['emptyResp', msg('AIRL', 'RESP', '<RECS>0</RECS>')],
  ['arpt', msg('ARPT', 'ADD', '<ARPT><ITCD>PEK</ITCD><ANAM>BEIJING CAPITAL</ANAM><ANMC>北京首都</ANMC><ABBR CODE = "ABR2">京</ABBR></ARPT>')],
  ['w24', msg('SCHS', 'DNLD', season('W24', fltr('MU', 'MU5101', 'A', '1234567') + fltr('CA', 'CA1501', 'D', '1030507') + fltr('CA', 'CA1501', 'A', '0000067')))],
  ['s25', msg('SCHS', 'DNLD', season('S25', fltr('ZH', 'ZH9001', 'D', '1234567') + fltr('CA', 'CA1777', 'D', '1234567')))],
  ['s25Again', msg('SCHS', 'RESP', season('S25', fltr('ZH', 'ZH9001', 'D', '1234567') + fltr('ZH', 'ZH9002', 'D', '12345ab')))],
];

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'msgx-e2eref-'));
  const cfg = loadConfig({
    MSGX_DATABASE_URL: db.url, MSGX_DATA_DIR: dataDir, MSGX_HTTP_HOST: '127.0.0.1', MSGX_HTTP_PORT: '0',
    MSGX_BACKOFF_MS: '20', MSGX_MAX_ATTEMPTS: '3', MSGX_POLL_INTERVAL_MS: '50', MSGX_SCHD_FLUSH_MS: '50', MSGX_GAP_TIMEOUT_MS: '2000',
    MSGX_LOG_LEVEL: 'trace',
  });
  captured = captureLog('trace');
  rt = await openRuntime(cfg, captured.log, { migrate: true });
  app = await assemble(rt, { role: 'all', standby: false });
  await app.start();
  base = `http://127.0.0.1:${app.httpPort()}`;
  gql = httpGql(`${base}/graphql`);
  for (const [name, text] of MESSAGES) {
    const res = await fetch(`${base}/cminmsgs/send`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: text });
    expect(res.status).toBe(200);
    ids[name] = ((await res.json()) as { id: string }).id;
  }
  await waitFor(() => drained(gql), { timeoutMs: 60_000, what: 'drained' });
}, 120_000);
afterAll(async () => {
  await app?.stop();
  await rt?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const q = async (query: string): Promise<any> => {
  const r = await gql(query);
  expect(r.errors).toBeUndefined();
  return r.data;
};
const state = async (name: string) => (await q(`{ message(id: "${ids[name]}") { state lastError } }`)).message;
const airlines = async () =>
  (await q('{ reference(kind: "AIRL") { totalCount edges { node { code name fields } } } }')).reference.edges.map((e: any) => ({ ...e.node, fields: JSON.parse(e.node.fields) }));

describe('reference data end to end', () => {
  it('applies ADD/UPD/DEL/DNLD with keyless records listed, unknown DEL keys skipped and an empty RESP changing nothing', async () => {
    for (const name of ['airl', 'vipl', 'viplUpd', 'viplKeyless', 'upd', 'del', 'emptyResp', 'arpt', 'w24', 's25', 's25Again']) {
      expect(await state(name), name).toEqual({ state: 'SUCCEEDED', lastError: null });
    }
    expect(await state('delUnknown')).toEqual({ state: 'SKIPPED', lastError: 'unknown-record' });
    expect(await airlines()).toEqual([
      { code: 'CA', name: 'AIR CHINA', fields: { ITOP: 'CA', ONAM: 'AIR CHINA', ONMC: '中国国际航空', CTRY: 'PRC', OGRP: ['STAR ALLIANCE'] } },
      { code: 'MU', name: 'CHINA EASTERN', fields: { ITOP: 'MU', ONAM: 'CHINA EASTERN', ONMC: '东方航空', ICOP: 'CES', OGRP: ['SKYTEAM'] } },
    ]);
    const airl = (await q(`{ message(id: "${ids.airl}") { decisions { kind payload changes { type data } } } }`)).message.decisions[0];
    expect(JSON.parse(airl.payload)).toMatchObject({
      skippedRecords: [{ index: 3, reason: 'missing-key' }],
      notes: ['1 record(s) without their key element skipped'],
    });
    expect(airl.changes.map((c: any) => c.type)).toEqual(['ReferenceUpserted', 'ReferenceUpserted', 'ReferenceUpserted', 'ReferenceSnapshotApplied']);
    const del = (await q(`{ message(id: "${ids.del}") { decisions { payload } } }`)).message.decisions[0];
    expect(JSON.parse(del.payload)).toMatchObject({ unknownRecords: ['ZZ'], changes: [{ type: 'ReferenceDeleted', code: 'HU', reason: 'del' }] });
    const empty = (await q(`{ message(id: "${ids.emptyResp}") { decisions { changes { type data } } } }`)).message.decisions[0];
    expect(JSON.parse(empty.changes[0].data)).toMatchObject({ type: 'ReferenceSnapshotApplied', empty: true, deleted: 0 });
    expect(captured.text()).toMatch(/"level":40,[^\n]*AIRL\/RESP holds no record/);
  });

  it('counts every kind and searches code, name and local name', async () => {
    const kinds = (await q('{ referenceKinds { kind count } }')).referenceKinds;
    expect(kinds).toHaveLength(23);
    expect(kinds.filter((k: any) => k.count > 0)).toEqual([{ kind: 'AIRL', count: 2 }, { kind: 'ARPT', count: 1 }, { kind: 'VIPL', count: 1 }]);
    expect((await q('{ reference(kind: "AIRL", search: "eastern") { edges { node { code } } } }')).reference.edges).toEqual([{ node: { code: 'MU' } }]);
    expect((await q('{ reference(kind: "ARPT", search: "首都") { edges { node { code fields } } } }')).reference.edges[0].node).toEqual({
      code: 'PEK', fields: JSON.stringify({ ABBR: [{ '#text': '京', '@CODE': 'ABR2' }], ANAM: 'BEIJING CAPITAL', ANMC: '北京首都', ITCD: 'PEK' }),
    });
  });

  it('replaces one season at a time and answers operatesOn by period and weekday', async () => {
    const all = (await q('{ seasonalFlights { totalCount edges { node { season airline flightNo direction daysOfOperation validFrom validTo } } } }')).seasonalFlights;
    expect(all.edges.map((e: any) => `${e.node.season} ${e.node.flightNo} ${e.node.direction}`)).toEqual([
      'W24 CA1501 ARRIVAL', 'W24 CA1501 DEPARTURE', 'W24 MU5101 ARRIVAL', 'S25 ZH9001 DEPARTURE',
    ]);
    // 2024-11-04 is a Monday, 2024-11-09 a Saturday; 2025-04-01 is outside W24's period
    const on = async (d: string) => (await q(`{ seasonalFlights(season: "W24", operatesOn: "${d}") { edges { node { flightNo direction } } } }`)).seasonalFlights.edges.map((e: any) => `${e.node.flightNo} ${e.node.direction}`);
    expect(await on('2024-11-04')).toEqual(['CA1501 DEPARTURE', 'MU5101 ARRIVAL']);
    expect(await on('2024-11-09')).toEqual(['CA1501 ARRIVAL', 'MU5101 ARRIVAL']);
    expect(await on('2025-04-01')).toEqual([]);
    const skipped = (await q(`{ message(id: "${ids.s25Again}") { decisions { payload } } }`)).message.decisions[0];
    expect(JSON.parse(skipped.payload).skippedRecords).toEqual([{ index: 2, reason: 'invalid-dyop', detail: "DYOP '12345ab' must be 7 characters of 0-7" }]);
  });

  it('withholds VIPL personal data: API fields, rawXml, decisions — and no log line carries it', async () => {
    const vip = (await q('{ reference(kind: "VIPL") { edges { node { kind code name nameLocal fields } } } }')).reference.edges;
    expect(vip).toEqual([{ node: { kind: 'VIPL', code: 'VC2001', name: null, nameLocal: null, fields: JSON.stringify({ VPCD: 'VC2001', VRNK: '1' }) } }]);
    for (const name of ['vipl', 'viplUpd', 'viplKeyless']) {
      const m = (await q(`{ message(id: "${ids[name]}") { type rawXml decisions { payload changes { data } } } }`)).message;
      expect(m.type).toBe('VIPL');
      expect(m.rawXml).toBeNull();
      for (const p of PERSONAL) expect(JSON.stringify(m.decisions), `${name} decisions`).not.toContain(p);
    }
    expect((await q(`{ message(id: "${ids.airl}") { rawXml } }`)).message.rawXml).toContain('<ITOP>CA</ITOP>');
    const lines = captured.text();
    expect(lines.length).toBeGreaterThan(1000); // trace level: the pump, ingest, projectors and HTTP did log
    for (const p of PERSONAL) expect(lines, `log carries ${p}`).not.toContain(p);
  });

  it('rebuild reference gives the same rows and moves the checkpoint to the head', async () => {
    const rows = async () => ({
      records: (await db.pool.query('SELECT kind, code, fields, name, name_local, last_position, last_msg_id, updated_at, source FROM reference_record ORDER BY kind, code')).rows,
      flights: (await db.pool.query('SELECT * FROM seasonal_flight ORDER BY season, seq')).rows,
      seasons: (await db.pool.query('SELECT * FROM seasonal_season ORDER BY season')).rows,
    });
    const before = await rows();
    expect(before.records.length).toBe(4);
    const r = await rebuildReference({ pool: db.pool, clock: rt.clock, log: silentLogger });
    expect(r).toMatchObject({ ok: true, records: 4, seasons: 2 });
    expect(await rows()).toEqual(before);
    const head = (await db.pool.query('SELECT max(position)::text AS p FROM decision_event')).rows[0].p;
    expect((await db.pool.query("SELECT position::text AS p FROM projection_checkpoint WHERE name = 'reference'")).rows[0].p).toBe(head);
  });
});
