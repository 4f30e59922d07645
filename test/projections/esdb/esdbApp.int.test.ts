/**
 * The EventStoreDB forwarder inside the assembled app (MSGX_ESDB_URL set): every corpus scenario,
 * posted to /cminmsgs/send, ends with exactly the flight changes of the decision log in each
 * per-flight stream, in log order, and one event per decision in each per-message stream.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assemble, type App } from '../../../src/cli/assemble.ts';
import type { Change } from '../../../src/domain/changes.ts';
import { loadConfig } from '../../../src/platform/config.ts';
import { silentLogger } from '../../../src/platform/logger.ts';
import { openRuntime, type Runtime } from '../../../src/platform/runtime.ts';
import { flightStream, messageStream } from '../../../src/projections/esdb/streamNames.ts';
import { startEsdbPeer, type EsdbPeer } from '../../support/esdb/server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/databases.ts';
import { activeScenarioNames, readScenario } from '../../support/corpusDir.ts';
import { waitFor } from '../../support/waitFor.ts';

const scenarios = activeScenarioNames();

describe.each(scenarios)('EventStoreDB streams for corpus scenario %s', (name) => {
  let db: TestDatabase;
  let peer: EsdbPeer;
  let rt: Runtime;
  let app: App;
  let dataDir: string;

  beforeAll(async () => {
    [db, peer] = await Promise.all([createTestDatabase(`esdbapp${name.slice(0, 2)}`), startEsdbPeer()]);
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'msgx-esdb-'));
    const cfg = loadConfig({
      MSGX_DATABASE_URL: db.url, MSGX_DATA_DIR: dataDir, MSGX_HTTP_HOST: '127.0.0.1', MSGX_HTTP_PORT: '0',
      MSGX_BACKOFF_MS: '20', MSGX_MAX_ATTEMPTS: '3', MSGX_POLL_INTERVAL_MS: '50', MSGX_ESDB_URL: peer.connectionString,
    });
    rt = await openRuntime(cfg, silentLogger, { migrate: true });
    app = await assemble(rt, { role: 'all', standby: false });
    await app.start();
  });
  afterAll(async () => {
    await app?.stop();
    await rt?.close();
    await peer?.close();
    await db?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('forwards every decision and every flight change, in order, exactly once', async () => {
    const s = readScenario(name);
    const base = `http://127.0.0.1:${app.httpPort()}`;
    for (const f of s.files) {
      const res = await fetch(`${base}/cminmsgs/send`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: f.xml });
      expect(res.status).toBe(200);
    }
    await waitFor(
      async () => {
        const { rows } = await db.pool.query<{ done: boolean }>(
          `SELECT (SELECT count(*) FROM proc_state WHERE state IN ('PENDING','FAILED')) = 0
              AND (SELECT count(*) FROM proc_state) = $1
              AND (SELECT position FROM projection_checkpoint WHERE name = 'esdb') = (SELECT last_position FROM pipeline_lock) AS done`,
          [s.files.length],
        );
        return rows[0]!.done;
      },
      { timeoutMs: 60_000, what: `${name}: log drained and forwarded` },
    );
    const { rows } = await db.pool.query<{ position: string; msg_id: string | null; kind: string; changes: Change[] | null }>(
      `SELECT position, msg_id, kind, payload->'changes' AS changes FROM decision_event ORDER BY position`,
    );
    const expected = new Map<string, string[]>();
    const perMessage = new Map<string, string[]>();
    for (const r of rows) {
      const ms = messageStream(r.msg_id);
      perMessage.set(ms, [...(perMessage.get(ms) ?? []), `${r.position}:${r.kind}`]);
      (r.changes ?? []).forEach((c, seq) => {
        const flids = 'flid' in c ? [c.flid] : c.type === 'FlightsArchived' ? c.flids : [];
        for (const flid of flids) {
          const st = flightStream(flid);
          expected.set(st, [...(expected.get(st) ?? []), `${r.position}:${seq}:${c.type}`]);
        }
      });
    }
    const streams = peer.streams();
    expect(expected.size).toBeGreaterThan(0);
    for (const [stream, events] of expected) {
      const got = (streams.get(stream) ?? []).map((e) => {
        const md = e.metadata as { position: string; seq: number };
        return `${md.position}:${md.seq}:${e.type}`;
      });
      expect(got, stream).toEqual(events);
    }
    for (const [stream, events] of perMessage) {
      expect((streams.get(stream) ?? []).map((e) => `${(e.data as { position: string }).position}:${e.type}`), stream).toEqual(events);
    }
    const flightStreams = [...streams.keys()].filter((k) => k.startsWith('msgx-flight-'));
    expect(flightStreams.sort()).toEqual([...expected.keys()].sort());
  });
});
