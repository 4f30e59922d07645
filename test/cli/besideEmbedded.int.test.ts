/**
 * Commands beside a running `msgx start` on the embedded default: they connect to its embedded
 * server (the data folder's msgx.json says where) and never stop it; a second `msgx start` on the
 * same folder refuses with exit 1. The running msgx stays ready throughout, and exits 0 on SIGINT.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { OWNER_FILE, type OwnerRecord } from '../../src/platform/dataFolderOwner.ts';
import { spawnMsgx } from '../support/msgxProcess.ts';
import { waitFor } from '../support/waitFor.ts';

let dataDir: string | undefined;
afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** /readyz answers ready (each of its checks has 2 s; on a loaded machine one may miss once: ask again). */
async function ready(port: number): Promise<boolean> {
  let last = '';
  return waitFor(async () => {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    last = await res.text();
    return res.status === 200 && (JSON.parse(last) as { status: string }).status === 'ready';
  }, { timeoutMs: 30_000, what: 'ready' }).catch((err: Error) => {
    throw new Error(`${err.message}: ${last}`);
  });
}

it('status, migrate and a second start beside a running embedded msgx leave it running and ready', async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'msgx-beside-'));
  const env = { MSGX_DATA_DIR: dataDir, MSGX_HTTP_PORT: '0', MSGX_LOG_LEVEL: 'info' };
  const msgx = spawnMsgx(['start'], env);
  try {
    await msgx.waitForLine('"msgx started"', { timeoutMs: 200_000 });
    const port = Number(/"http":"http:\/\/localhost:(\d+)\/graphql"/.exec(msgx.output())![1]);
    const owner = JSON.parse(await readFile(path.join(dataDir, OWNER_FILE), 'utf8')) as OwnerRecord;
    expect(owner).toMatchObject({ pid: msgx.pid, command: 'msgx start' });
    expect(owner.url).toMatch(/^postgres:\/\/msgx:[^@/]+@127\.0\.0\.1:\d+\/msgx$/);
    expect(await ready(port)).toBe(true);

    const status = spawnMsgx(['status', '--json'], env);
    expect((await status.exit).code, status.output()).toBe(0);
    // results on stdout (parseable as a whole), logs on stderr
    expect(JSON.parse(status.stdout())).toMatchObject({ backlog: 0 });
    expect(status.stderr()).toContain('using the embedded PostgreSQL of the running msgx');
    expect(status.output()).not.toContain('stopping it');

    const migrate = spawnMsgx(['migrate'], env);
    expect((await migrate.exit).code, migrate.output()).toBe(0);
    expect(migrate.stdout()).toBe('migrations up to date\n');

    const second = spawnMsgx(['start'], env);
    expect((await second.exit).code).toBe(1);
    expect(second.stderr()).toContain(`another msgx is running (pid ${msgx.pid}`);
    expect(second.stderr()).not.toMatch(/\bat .*\.(ts|js):\d+/);

    expect(msgx.child.exitCode, msgx.output().slice(-3000)).toBeNull();
    expect(await ready(port)).toBe(true);
    expect(JSON.parse(await readFile(path.join(dataDir, OWNER_FILE), 'utf8'))).toEqual(owner);

    msgx.kill('SIGINT');
    expect((await msgx.exit).code).toBe(0);
    // released on the way out: the next start owns the folder
    await expect(readFile(path.join(dataDir, OWNER_FILE), 'utf8')).rejects.toThrow(/ENOENT/);
  } finally {
    msgx.kill('SIGKILL');
  }
}, 420_000);
