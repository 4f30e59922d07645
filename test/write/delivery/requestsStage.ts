/**
 * The stage of the request tests (plan requests RQFD, reference requests RQRD): a test database
 * and a MariaDB mailbox for the file, req_track and COUTMSGS emptied and a FakeClock at
 * 2025-03-14T01:00Z (09:00 local) before each test, the tracker stopped after each; the CLI
 * command run in-process with its stdout captured; and the pump played by an inbox row plus its
 * Applied decision through the real append.
 */
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';
import type { Command } from '../../../src/cli/commands.ts';
import type { Change } from '../../../src/domain/changes.ts';
import { FakeClock } from '../../../src/platform/clock.ts';
import type { Config } from '../../../src/platform/config.ts';
import { withTransaction } from '../../../src/platform/db.ts';
import { silentLogger } from '../../../src/platform/logger.ts';
import { createMysqlMailbox } from '../../../src/platform/mailbox/mysqlMailbox.ts';
import type { Mailbox } from '../../../src/platform/mailbox/port.ts';
import type { Service } from '../../../src/platform/service.ts';
import { createRequestTracker, type RequestTrackerDeps } from '../../../src/write/requests/requestTracker.ts';
import { fileDatabases, type FileDatabases } from '../../support/fileDatabases.ts';
import { appendWith } from '../../support/decisions.ts';
import { testConfig } from './outboxFixture.ts';

const TZ = 'Asia/Shanghai';

export interface CoutmsgsRow {
  id: string;
  xml: string;
  routing: string;
}

/** An inbox message's columns (besides msg_id, ingested_at, raw_xml), as ingest records META. */
export interface InboxMeta {
  sndr: string | null;
  type: string | null;
  styp: string | null;
  rmid: string | null;
}

export interface RequestsStage extends FileDatabases {
  readonly mailbox: Mailbox;
  readonly clock: FakeClock;
  /** The test configuration on this stage's databases (`env` on top of the file's). */
  cfg(env?: Record<string, string>): Config;
  /** Start the tracker (stopped after the test) with `over` on top of the stage's deps. */
  startTracker(env?: Record<string, string>, over?: Partial<RequestTrackerDeps>): Promise<void>;
  stopTracker(): Promise<void>;
  /** `msgx <command> <args>` in-process; its exit code and what it wrote to stdout. */
  runCommand(command: Command, args: readonly string[]): Promise<{ code: number; stdout: string }>;
  /** Plays ingest + pump: an inbox message (`meta` recorded, or none) and its Applied decision by `handler`. Returns its id. */
  decided(opts: { raw: (msgId: string) => string; meta?: InboxMeta; handler: string; change: Change }): Promise<string>;
  /** COUTMSGS rows in id order, those containing `like` only when given. */
  coutmsgs(like?: string): Promise<CoutmsgsRow[]>;
}

/** Register the stage's hooks for this file (call at module level) and return it. */
export function requestsStage(label: string, env: Record<string, string>, firstMsgId: number): RequestsStage {
  const dbs = fileDatabases(label);
  let mailbox!: Mailbox;
  let clock!: FakeClock;
  let tracker: Service | undefined;
  let nextMsgId = firstMsgId;

  beforeAll(() => {
    mailbox = createMysqlMailbox(dbs.my.url, TZ);
  });
  afterAll(async () => {
    await mailbox?.close();
  });
  beforeEach(async () => {
    await dbs.db.pool.query('DELETE FROM req_track');
    await dbs.my.pool.query('DELETE FROM COUTMSGS');
    clock = new FakeClock('2025-03-14T01:00:00Z'); // 09:00 local
  });
  afterEach(async () => {
    await stage.stopTracker();
    vi.restoreAllMocks();
  });

  const stage: RequestsStage = {
    get db() { return dbs.db; },
    get my() { return dbs.my; },
    get mailbox() { return mailbox; },
    get clock() { return clock; },
    cfg: (more = {}) => testConfig({ MSGX_DATABASE_URL: dbs.db.url, MSGX_MAILBOX_MYSQL_URL: dbs.my.url, ...env, ...more }),
    startTracker(more = {}, over = {}) {
      const cfg = stage.cfg(more);
      tracker = createRequestTracker({ pool: dbs.db.pool, databaseUrl: dbs.db.url, mailbox, clock, cfg, log: silentLogger, dailyAt: undefined, ...over });
      return tracker.start();
    },
    async stopTracker() {
      await tracker?.stop();
      tracker = undefined;
    },
    async runCommand(command, args) {
      let stdout = '';
      vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
        stdout += String(chunk);
        return true;
      });
      try {
        return { code: await command.run(args, { cfg: stage.cfg(), log: silentLogger }), stdout };
      } finally {
        vi.restoreAllMocks();
      }
    },
    async decided({ raw, meta, handler, change }) {
      const msgId = String(nextMsgId++);
      await withTransaction(dbs.db.pool, async (c) => {
        await c.query(
          'INSERT INTO inbox_message (msg_id, ingested_at, raw_xml, sndr, type, styp, rmid) VALUES ($1, $2, $3, $4, $5, $6, $7)',
          [msgId, clock.now(), raw(msgId), meta?.sndr ?? null, meta?.type ?? null, meta?.styp ?? null, meta?.rmid ?? null],
        );
        await appendWith(c, { msgId, handler, handlerVersion: 1, payload: { changes: [change] }, recordedAt: clock.now() });
      });
      return msgId;
    },
    async coutmsgs(like) {
      const [rows] = await dbs.my.pool.query(
        `SELECT COUTMSGS_ID AS id, COUTMSGS_CLOB_MSG AS xml, ROUTINGID AS routing FROM COUTMSGS${like ? ' WHERE COUTMSGS_CLOB_MSG LIKE ?' : ''} ORDER BY COUTMSGS_ID`,
        like ? [`%${like}%`] : [],
      );
      return rows as CoutmsgsRow[];
    },
  };
  return stage;
}
