/**
 * The whole assembled app (role all: ingest, pump, projectors, dispatcher, read API) over a test
 * database, the mailbox emulated in it (or MariaDB CMINMSGS through MSGX_MAILBOX_MYSQL_URL),
 * optionally Kafka on a test broker — for tests that follow a decision to the read models,
 * GraphQL and Kafka. `decide` injects the pump's handlers, `log` receives the app's log.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { assemble, type App, type AssembleOptions } from '../../src/cli/assemble.ts';
import type { Decider } from '../../src/domain/decide.ts';
import { loadConfig, type Config } from '../../src/platform/config.ts';
import { silentLogger, type Logger } from '../../src/platform/logger.ts';
import { openRuntime, type Runtime } from '../../src/platform/runtime.ts';
import { drained, httpGql, type Gql } from '../e2e/support/scenarioRunner.ts';
import type { TestDatabase } from './databases.ts';
import { waitFor } from './waitFor.ts';
import { fileDatabase } from './fileDatabase.ts';
import { fileFixture } from './fileFixture.ts';

export interface RunningApp {
  readonly rt: Runtime;
  readonly app: App;
  readonly gql: Gql;
  readonly cfg: Config;
  /** http://127.0.0.1:<port> of the read API. */
  readonly base: string;
  /** Insert into (emulated) CMINMSGS; returns the CMINMSGS ids. */
  send(xmls: readonly string[]): Promise<string[]>;
  /** Wait until nothing is unfinished and every projector is at the head. */
  drained(what?: string): Promise<void>;
  stop(): Promise<void>;
}

export function appEnv(db: TestDatabase, env: Record<string, string> = {}): Record<string, string> {
  return {
    MSGX_DATABASE_URL: db.url,
    MSGX_HTTP_HOST: '127.0.0.1',
    MSGX_HTTP_PORT: '0',
    MSGX_BACKOFF_MS: '20',
    MSGX_MAX_ATTEMPTS: '3',
    MSGX_POLL_INTERVAL_MS: '50',
    MSGX_SCHD_FLUSH_MS: '50',
    MSGX_GAP_TIMEOUT_MS: '2000',
    // The corpus days lie years back: keep the history sweep (wall-clock "today", docs/operations.md) off them.
    MSGX_HISTORY_KEEP_DAYS: '100000',
    MSGX_ARCHIVE_AFTER_DAYS: '100000',
    ...env,
  };
}

export async function startApp(
  db: TestDatabase,
  opts: { env?: Record<string, string>; decide?: Decider; log?: Logger; bigHeadSlicing?: AssembleOptions['bigHeadSlicing'] } = {},
): Promise<RunningApp> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'msgx-app-'));
  const cfg = loadConfig({ ...appEnv(db, opts.env), MSGX_DATA_DIR: dataDir });
  const rt = await openRuntime(cfg, opts.log ?? silentLogger, { migrate: true });
  const app = await assemble(rt, {
    role: 'all', standby: false, ...(opts.decide ? { decide: opts.decide } : {}), ...(opts.bigHeadSlicing ? { bigHeadSlicing: opts.bigHeadSlicing } : {}),
  });
  await app.start();
  const base = `http://127.0.0.1:${app.httpPort()}`;
  const gql = httpGql(`${base}/graphql`);
  return {
    rt,
    app,
    gql,
    cfg,
    base,
    async send(xmls) {
      const ids: string[] = [];
      for (const x of xmls) ids.push(await rt.mailbox.insertInbound(x, new Date('2025-03-14T00:00:00Z')));
      return ids;
    },
    async drained(what = 'drained') {
      await waitFor(() => drained(gql), { timeoutMs: 300_000, what });
    },
    async stop() {
      await app.stop();
      await rt.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * This test file's app (call at module level): its own database (fileDatabase), the app started
 * before its tests and stopped after them. The members answer for the running app.
 */
export function fileApp(label: string, opts: Parameters<typeof startApp>[1] = {}): Omit<RunningApp, 'stop'> {
  const db = fileDatabase(label);
  const app = fileFixture(`the app of '${label}'`, () => startApp(db, opts), (running) => running.stop());
  return {
    get rt() { return app().rt; },
    get app() { return app().app; },
    get cfg() { return app().cfg; },
    get base() { return app().base; },
    gql: (query, variables) => app().gql(query, variables),
    send: (xmls) => app().send(xmls),
    drained: (what) => app().drained(what),
  };
}
