/**
 * Outage of the shared MariaDB (CMINMSGS / COUTMSGS) under the assembled app: a TCP proxy between
 * msgx and MariaDB is cut (every connection closed, new ones refused) while traffic flows, for
 * ~5 s (60 s with MSGX_SOAK=1). The test itself writes CMINMSGS past the proxy, as AODB would.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, targetOf, type TcpProxy } from '../support/tcpProxy.ts';
import { waitFor } from '../support/waitFor.ts';
import { badTime } from '../write/support/messages.ts';
import { decisions, insertCminmsgsBulk, terminalCounts } from '../write/support/writeHarness.ts';
import {
  check, counts, describeProblems, FLIDS, holdOutage, logIsGapFree, logLines, notReady, operations, OUTAGE_MS, outageDatabases, plan, problemsPerComponent,
  DRAIN_WITHIN_MS, RESUME_WITHIN_MS, startApp, type RunningApp,
} from './support/outageApp.ts';

const dbs = outageDatabases('outmaria');
let proxy: TcpProxy;
let app: RunningApp | undefined;

beforeAll(async () => {
  proxy = await startTcpProxy({ target: targetOf(dbs.my.url, 3306) });
});
afterAll(async () => {
  await app?.stop();
  await proxy?.close();
});

async function cminmsgsUnprocessed(): Promise<number> {
  const [rows] = await dbs.my.pool.query('SELECT count(*) AS n FROM CMINMSGS WHERE CMINMSGS_STATUS IS NULL OR CMINMSGS_DATE_PROCESSED IS NULL');
  return Number((rows as { n: string | number }[])[0]!.n);
}

describe(`MariaDB (shared mailbox) down for ${OUTAGE_MS / 1000} s`, () => {
  it('reports not ready, keeps reading and deciding, logs it once, and resumes within 5 s', { timeout: 420_000 }, async () => {
    // The test holds pipeline_lock's row, so the pump's first commit waits while ingest copies
    // everything: there is ingested, undecided work when the mailbox goes away. (An undecodable
    // head used to do this by retrying; it parks at once now.) Released right after the cut.
    const before = [plan(), ...operations(1000, 40), badTime(1040, FLIDS[0]!), ...operations(1041, 1200)];
    const during = operations(3000, 300);
    const total = before.length + during.length;
    app = await startApp({ MSGX_DATABASE_URL: dbs.db.url, MSGX_MAILBOX_MYSQL_URL: proxy.url(dbs.my.url), MSGX_MAX_ATTEMPTS: '3' });
    expect((await app.readyz()).status).toBe(200);

    const holder = new pg.Client({ connectionString: dbs.db.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM pipeline_lock WHERE id = 1 FOR UPDATE');
    await insertCminmsgsBulk(dbs.my, before);
    await waitFor(async () => {
      const c = await counts(dbs.db);
      return c.copied === before.length && c.unfinished > 1000;
    }, { timeoutMs: DRAIN_WITHIN_MS, what: 'everything copied while the pump is held back' });

    // ---- the outage ----
    proxy.cut();
    const cutAt = Date.now();
    const atCut = await counts(dbs.db);
    await holder.query('COMMIT');
    await holder.end();
    await insertCminmsgsBulk(dbs.my, during); // AODB keeps writing; msgx cannot read it now

    const duringOutage = async () => {
      // /readyz: not ready, and it says why.
      const r = await notReady(app!);
      expect(check(r, 'mailbox').ok).toBe(false);
      expect(check(r, 'postgres').ok).toBe(true);
      // Reads answer from PostgreSQL; the pipeline status leaves out only what needs the mailbox.
      // (the projectors keep going too: the plan may reach the read model only now)
      const flight = await waitFor(async () => {
        const f = await app!.gql('query($f: ID!) { flight(flid: $f) { flid flightNo } }', { f: FLIDS[1] });
        expect(f.errors).toBeUndefined();
        return f.data.flight as { flid: string; flightNo: string } | null;
      }, { what: 'the flight through GraphQL' });
      expect(flight).toEqual({ flid: FLIDS[1], flightNo: `CA${FLIDS[1]}` });
      // A status screen polls the pipeline: it answers every time (without the mailbox's count).
      for (let i = 0; i < 5; i++) {
        const pipe = await app!.gql('{ pipeline { uncopied logPosition } }');
        expect(pipe.errors).toBeUndefined();
        expect(pipe.data.pipeline.uncopied).toBeNull();
      }
      // The compatibility entry cannot write CMINMSGS now: 503, so the sender retries.
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${app!.base}/cminmsgs/send`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: operations(4000 + i, 1)[0] });
        expect(res.status).toBe(503);
      }
      // The pump decides everything that was copied before the outage; nothing new is copied.
      await waitFor(async () => (await counts(dbs.db)).unfinished === 0, { timeoutMs: DRAIN_WITHIN_MS, what: 'the pump to decide what was copied' });
      const c = await counts(dbs.db);
      expect(c.copied).toBe(atCut.copied);
      expect(c.decisions).toBeGreaterThan(atCut.decisions);
      // Write-backs wait, recorded as pending with their failed attempts.
      await waitFor(async () => (await counts(dbs.db)).backfillRetried > 0, { what: 'a failed write-back recorded' });
      expect(await cminmsgsUnprocessed()).toBeGreaterThanOrEqual(during.length);
    };
    await Promise.all([holdOutage(OUTAGE_MS), duringOutage()]);
    const stillDown = await counts(dbs.db);
    expect(stillDown.copied).toBe(atCut.copied);
    expect(stillDown.backfillPending).toBeGreaterThan(0);

    // ---- recovery ----
    await proxy.restore();
    const restoredAt = Date.now();
    await waitFor(async () => (await counts(dbs.db)).copied > atCut.copied, { timeoutMs: RESUME_WITHIN_MS, intervalMs: 10, what: 'ingest to resume' });
    const resumedMs = Date.now() - restoredAt;
    await waitFor(async () => {
      const c = await counts(dbs.db);
      return c.copied === total && c.unfinished === 0 && c.backfillPending === 0;
    }, { timeoutMs: DRAIN_WITHIN_MS, what: 'everything decided and written back' });
    const drainedMs = Date.now() - restoredAt;
    expect(await cminmsgsUnprocessed()).toBe(0);
    await waitFor(async () => (await app!.readyz()).status === 200, { timeoutMs: RESUME_WITHIN_MS, what: '/readyz 200 again' });

    // Nothing lost, nothing decided twice.
    const log = await decisions(dbs.db);
    const terminal = terminalCounts(log);
    expect(terminal.size).toBe(total);
    expect([...terminal.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    expect(await logIsGapFree(dbs.db)).toBe(true);

    // Logged once, not a flood: each component says what is wrong at most twice over the whole outage.
    const lines = logLines(app.log);
    const problems = problemsPerComponent(lines, cutAt, Date.now());
    const story = describeProblems(lines, cutAt, Date.now());
    expect(Object.keys(problems).sort(), story).toEqual(expect.arrayContaining(['backfill', 'ingest', 'read-api/compat', 'read-api/graphql']));
    for (const [component, n] of Object.entries(problems)) expect(n, `${component}:\n${story}`).toBeLessThanOrEqual(2);
    expect(lines.some((l) => l.component === 'ingest' && l.msg === 'ingest resumed' && l.time >= restoredAt)).toBe(true);

    process.stderr.write(`[outage mariadb] outage ${restoredAt - cutAt} ms, ingest resumed after ${resumedMs} ms, drained ${drainedMs} ms after restore; warnings: ${JSON.stringify(problems)}\n`);
  });
});
