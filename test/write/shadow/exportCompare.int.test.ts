/**
 * The comparison aid of a shadow run (docs/operations.md) on corpus day 2025-03-14: `msgx export flights`
 * writes the read model in the documented column order (CSV and NDJSON), and `msgx compare`
 * diffs two msgx instances field by field — here a shadow on MariaDB and a production instance on
 * the emulated mailbox, fed the same corpus, then one more message on one side only.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { assemble, type App } from '../../../src/cli/assemble.ts';
import { compareCommand } from '../../../src/cli/compareCommand.ts';
import { exportCommand } from '../../../src/cli/exportCommand.ts';
import { EXPORT_COLUMNS } from '../../../src/domain/flightExport.ts';
import { loadConfig, type Config } from '../../../src/platform/config.ts';
import { silentLogger } from '../../../src/platform/logger.ts';
import { openRuntime, type Runtime } from '../../../src/platform/runtime.ts';
import { readScenario, type CorpusScenario } from '../../support/corpusDir.ts';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../../support/databases.ts';
import { waitFor } from '../../support/waitFor.ts';
import { drained, httpGql } from '../../e2e/support/scenarioRunner.ts';

const DAY = '2025-03-14';

interface Instance {
  readonly db: TestDatabase;
  readonly cfg: Config;
  readonly rt: Runtime;
  readonly app: App;
  readonly dataDir: string;
}

const instances: Instance[] = [];
let my: TestMailbox;
let corpus: CorpusScenario;
let shadow: Instance;
let production: Instance;

async function instance(label: string, opts: { mysql?: TestMailbox; shadow: boolean }): Promise<Instance> {
  const db = await createTestDatabase(label);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `msgx-${label}-`));
  const cfg = loadConfig({
    MSGX_DATABASE_URL: db.url,
    ...(opts.mysql ? { MSGX_MAILBOX_MYSQL_URL: opts.mysql.url } : {}),
    MSGX_DATA_DIR: dataDir,
    MSGX_HTTP_HOST: '127.0.0.1',
    MSGX_HTTP_PORT: '0',
    MSGX_POLL_INTERVAL_MS: '50',
    MSGX_SCHD_FLUSH_MS: '50',
    MSGX_LOG_LEVEL: 'silent',
  });
  const rt = await openRuntime(cfg, silentLogger, { migrate: true });
  const app = await assemble(rt, { role: 'all', standby: false, shadow: opts.shadow });
  await app.start();
  const i = { db, cfg, rt, app, dataDir };
  instances.push(i);
  return i;
}

const settle = (i: Instance) => waitFor(() => drained(httpGql(`http://127.0.0.1:${i.app.httpPort()}/graphql`)), { timeoutMs: 60_000, what: 'drained' });

/** Run a CLI command in-process; its stdout and exit code. */
async function cli(cmd: typeof exportCommand, args: string[], cfg: Config): Promise<{ code: number; out: string }> {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return true;
  });
  try {
    const code = await cmd.run(args, { cfg, log: silentLogger });
    return { code, out };
  } finally {
    spy.mockRestore();
  }
}

beforeAll(async () => {
  corpus = readScenario('01-plan-and-operations');
  my = await createTestMailbox('expcmp');
  [shadow, production] = await Promise.all([instance('expshadow', { mysql: my, shadow: true }), instance('expprod', { shadow: false })]);
  for (const f of corpus.files) {
    await my.pool.execute('INSERT INTO CMINMSGS (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED) VALUES (?, NOW())', [f.xml]);
    await production.rt.mailbox.insertInbound(f.xml, new Date());
  }
  await Promise.all([settle(shadow), settle(production)]);
});

afterAll(async () => {
  for (const i of instances) {
    await i.app.stop().catch(() => undefined);
    await i.rt.close().catch(() => undefined);
    await i.db.drop();
    await rm(i.dataDir, { recursive: true, force: true });
  }
  await my?.drop();
});

describe('msgx export flights', () => {
  it('writes every flight of the day as CSV, header in the documented column order, one row per flight in flid order', async () => {
    const { code, out } = await cli(exportCommand, ['flights', '--day', DAY], shadow.cfg);
    expect(code).toBe(0);
    const lines = out.split('\r\n').filter(Boolean);
    expect(lines[0]).toBe(EXPORT_COLUMNS.join(','));
    const { rows } = await shadow.db.pool.query<{ flid: string }>('SELECT flid::text FROM flight_schd WHERE operation_day = $1 ORDER BY flid', [DAY]);
    expect(rows.length).toBeGreaterThan(1);
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(rows.map((r) => r.flid));
    expect(lines[1]).toMatch(/^880001,2025-03-14,CA-CA1501-A-14MAR250930-D,/);
  });

  it('writes the same records as NDJSON, keys in column order; the same day exports identically from both instances', async () => {
    const a = await cli(exportCommand, ['flights', '--day', DAY, '--format', 'ndjson'], shadow.cfg);
    const b = await cli(exportCommand, ['flights', '--day', DAY, '--format', 'ndjson'], production.cfg);
    const records = a.out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.every((r) => JSON.stringify(Object.keys(r)) === JSON.stringify(EXPORT_COLUMNS))).toBe(true);
    expect(records.find((r) => r.flid === '880001')).toMatchObject({ estimatedTime: '2025-03-14T09:18:00+08:00' });
    expect(b.out).toBe(a.out);
  });

  it('refuses bad usage with exit 2 semantics (UsageError)', async () => {
    await expect(exportCommand.run(['flights', '--day', '2025-02-30'], { cfg: shadow.cfg, log: silentLogger })).rejects.toThrow(/--day/);
    await expect(exportCommand.run(['flights', '--day', DAY, '--format', 'xml'], { cfg: shadow.cfg, log: silentLogger })).rejects.toThrow(/--format/);
  });
});

describe('msgx compare', () => {
  it('finds no difference between the shadow and the production instance after the same corpus', async () => {
    const r = await cli(compareCommand, ['--day', DAY, '--with', production.db.url], shadow.cfg);
    expect(r.out).toMatch(/no differences/);
    expect(r.code).toBe(0);
  });

  it('reports a differing field by its GraphQL name, exit 1, and the same as JSON', async () => {
    const estt = corpus.files.find((f) => f.name === '002-estt.xml')!.xml.replace('<SEQN>200001</SEQN>', '<SEQN>290002</SEQN>').replace('14MAR250918', '14MAR250940');
    await production.rt.mailbox.insertInbound(estt, new Date());
    await waitFor(async () => {
      const { rows } = await production.db.pool.query("SELECT to_char(estimated_time AT TIME ZONE 'UTC', 'HH24:MI') AS t FROM flight_schd WHERE flid = 880001");
      return rows[0]?.t === '01:40';
    }, { what: 'the extra ESTT projected' });

    const table = await cli(compareCommand, ['--day', DAY, '--with', production.db.url], shadow.cfg);
    expect(table.code).toBe(1);
    expect(table.out).toMatch(/880001\s+estimatedTime\s+2025-03-14T09:18:00\+08:00\s+2025-03-14T09:40:00\+08:00/);
    expect(table.out).toMatch(/1 flights differ \(0 only here, 0 only there\)/);

    const json = await cli(compareCommand, ['--day', DAY, '--with', production.db.url, '--json'], shadow.cfg);
    expect(json.code).toBe(1);
    const c = JSON.parse(json.out) as { differing: { flid: string; presence: string; diff: { fields: Record<string, unknown>; lists: Record<string, unknown> } }[] };
    expect(c.differing).toEqual([
      { flid: '880001', presence: 'both', diff: { fields: { estimatedTime: { before: '2025-03-14T09:18:00+08:00', after: '2025-03-14T09:40:00+08:00' } }, lists: {} } },
    ]);
  });
});
