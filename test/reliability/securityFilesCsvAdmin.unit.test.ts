/**
 * The small findings of round 3 (docs/security.md §12): file modes of the data folder and of the
 * outbound NDJSON files, CSV formula cells, the admin action table's prototype and the admin
 * token comparison.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { csvField, csvLine, EXPORT_COLUMNS, type ExportRecord } from '../../src/domain/flightExport.ts';
import { createDataFolder, letPostgresEnter } from '../../src/platform/dataFolderOwner.ts';
import { sameSecret } from '../../src/platform/http/sameSecret.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import type { Runtime } from '../../src/platform/runtime.ts';
import { createNdjsonSink } from '../../src/write/delivery/ndjsonSink.ts';
import { adminRequest } from '../support/adminRequest.ts';

const temp: string[] = [];
afterAll(async () => {
  await Promise.all(temp.map((d) => rm(d, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'msgx-modes-'));
  temp.push(d);
  return d;
}
const modeOf = async (p: string) => (await stat(p)).mode & 0o777;

describe('file modes', () => {
  it('creates the data folder 0700, out/ 0700 and its NDJSON files 0600', async () => {
    const root = await tempDir();
    const dataDir = path.join(root, 'data');
    await createDataFolder(dataDir);
    expect(await modeOf(dataDir)).toBe(0o700);
    const out = path.join(dataDir, 'out');
    const sink = createNdjsonSink(out);
    await sink.send('msg', [{ key: 'k', value: '{"a":1}', headers: {}, eventIds: ['1'] }]);
    await sink.close();
    expect(await modeOf(out)).toBe(0o700);
    expect(await modeOf(path.join(out, 'msg.ndjson'))).toBe(0o600);
  });

  it.runIf(process.getuid?.() === 0)('as root, keeps the data folder root-owned; the postgres group may only enter it (0710)', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    await createDataFolder(dataDir);
    await letPostgresEnter(dataDir, { gid: 65534 });
    const s = await stat(dataDir);
    expect(s.uid).toBe(0);
    expect(s.gid).toBe(65534);
    expect(s.mode & 0o777).toBe(0o710);
  });
});

describe('CSV export', () => {
  it('neutralises cells a spreadsheet would read as a formula', () => {
    for (const bad of ['=HYPERLINK("http://x","y")', '+1+1', '-2+3+cmd|\' /C calc\'!A0', '@SUM(A1)', '\tTAB', '\rCR']) {
      const cell = csvField(bad);
      const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replaceAll('""', '"') : cell;
      expect(unquoted).toBe(`'${bad}`);
    }
    expect(csvField('CA1501')).toBe('CA1501');
    expect(csvField(-5)).toBe('-5'); // a number is no formula
    const record = Object.fromEntries(EXPORT_COLUMNS.map((c) => [c, null])) as ExportRecord;
    const line = csvLine({ ...record, flightNo: '=1+2' });
    expect(line).toContain(",'=1+2,");
  });
});

describe('admin token and actions', () => {
  const token = 'ops:0123456789abcdef';

  it('compares tokens as digests: equal only when equal, whatever the lengths', () => {
    expect(sameSecret(token, token)).toBe(true);
    expect(sameSecret(token.slice(0, -1), token)).toBe(false);
    expect(sameSecret(`${token}x`, token)).toBe(false);
    expect(sameSecret('', token)).toBe(false);
  });

  /** One request through the /admin handler, without a socket. */
  function admin(pathname: string, auth = `Bearer ${token}`): Promise<{ status: number; body: string }> {
    const rt = { cfg: { adminToken: token }, log: silentLogger } as unknown as Runtime;
    return adminRequest(rt, pathname, auth, '{}');
  }

  it('finds no action through the object prototype', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const r = await admin(`/admin/${name}`);
      expect(r.status, name).toBe(404);
      expect(r.body).toContain('no admin action');
    }
    expect((await admin('/admin/replay', 'Bearer wrong-token-of-other-length')).status).toBe(401);
  });
});
