/**
 * The browser tests' setting: a test database, msgx in this process on it (role all or api, on a
 * free port of 127.0.0.1) and Debian's Chromium; close() ends them all, newest first.
 */
import type { Browser } from 'playwright-core';
import { assemble, type App } from '../../../../src/cli/assemble.ts';
import { loadConfig } from '../../../../src/platform/config.ts';
import { silentLogger } from '../../../../src/platform/logger.ts';
import { openRuntime, type Runtime } from '../../../../src/platform/runtime.ts';
import { createTestDatabase, type TestDatabase } from '../../../support/databases.ts';
import { launchChromium } from './browser.ts';
import type { Mailbox } from '../../../../src/platform/mailbox/port.ts';

export interface ConsoleSetting {
  readonly db: TestDatabase;
  readonly browser: Browser;
  /** Start msgx; returns its origin (http://127.0.0.1:port). */
  start(role: 'all' | 'api', extra: Record<string, string>): Promise<string>;
  /** The mailbox of the msgx started first (to send it messages). */
  mailbox(): Mailbox;
  close(): Promise<void>;
}

export async function consoleSetting(label: string): Promise<ConsoleSetting> {
  const db = await createTestDatabase(label);
  const running: { rt: Runtime; app: App }[] = [];
  const browser = await launchChromium();
  return {
    db,
    browser,
    async start(role, extra) {
      const cfg = loadConfig({
        MSGX_DATABASE_URL: db.url, MSGX_HTTP_PORT: '0', MSGX_HTTP_HOST: '127.0.0.1', MSGX_POLL_INTERVAL_MS: '50',
        MSGX_HISTORY_KEEP_DAYS: '36500', MSGX_CONSISTENCY_CHECK_ON_START: 'false', ...extra,
      });
      const rt = await openRuntime(cfg, silentLogger);
      const app = await assemble(rt, { role, standby: false });
      running.push({ rt, app });
      await app.start();
      return `http://127.0.0.1:${app.httpPort()}`;
    },
    mailbox() {
      if (!running[0]) throw new Error('start msgx first');
      return running[0].rt.mailbox;
    },
    async close() {
      await browser.close();
      for (const { rt, app } of running.splice(0).reverse()) {
        await app.stop();
        await rt.close();
      }
      await db.drop();
    },
  };
}
