/**
 * Secrets are never logged: passwords in the MSGX_*_URL variables do not reach the log (start-up
 * lines of openRuntime, the logger's own censoring) nor the configuration error printed at start.
 * No connection is opened here: pools and the MySQL mailbox connect lazily, on first query.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';
import { openRuntime, type Runtime } from '../../src/platform/runtime.ts';
import { captureLog } from './support/captureLog.ts';

const SECRETS = { pg: 'Pg-s3cret-1', read: 'Rd-s3cret-2', mysql: 'My-s3cret-3', esdb: 'Es-s3cret-4' };
// Port 1 on loopback: nothing listens there, so even an unexpected connection attempt goes nowhere.
const ENV = {
  MSGX_DATABASE_URL: `postgres://msgx:${SECRETS.pg}@127.0.0.1:1/msgx`,
  MSGX_READ_DATABASE_URL: `postgresql://msgx_api:${SECRETS.read}@127.0.0.1:1/msgx`,
  MSGX_MAILBOX_MYSQL_URL: `mysql://aodb:${SECRETS.mysql}@127.0.0.1:1/aodb`,
  MSGX_ESDB_URL: `esdb://admin:${SECRETS.esdb}@127.0.0.1:1?tls=false`,
  MSGX_LOG_LEVEL: 'trace',
};

function leaked(text: string, secrets: readonly string[] = Object.values(SECRETS)): string[] {
  return secrets.filter((s) => text.includes(s) || text.includes(encodeURIComponent(s)));
}

describe('secrets never logged', () => {
  let rt: Runtime | undefined;
  afterEach(async () => {
    await rt?.close();
    rt = undefined;
  });

  it('openRuntime names the databases and the mailbox without their passwords', async () => {
    const cfg = loadConfig(ENV);
    const cap = captureLog();
    rt = await openRuntime(cfg, cap.log, { migrate: false });
    const out = cap.text();
    expect(out).toContain('using PostgreSQL');
    expect(out).toContain('127.0.0.1:1/aodb'); // the mailbox line is there, password masked
    expect(out).toContain('***');
    expect(leaked(out)).toEqual([]);
  });

  it('the logger censors password and connectionString keys wherever a child scope puts them', () => {
    const cap = captureLog();
    const child = cap.log.child({ role: 'pump' });
    child.info({ password: SECRETS.pg, db: { connectionString: ENV.MSGX_DATABASE_URL, password: SECRETS.read } }, 'connecting');
    const line = JSON.parse(cap.text().trim()) as { password: string; db: { connectionString: string; password: string } };
    expect(line.password).toBe('***');
    expect(line.db).toEqual({ connectionString: '***', password: '***' });
    expect(leaked(cap.text())).toEqual([]);
  });

  it('a password given as a URL parameter (?password=) is masked too', async () => {
    const cfg = loadConfig({ ...ENV, MSGX_DATABASE_URL: `postgres://msgx@127.0.0.1:1/msgx?password=${SECRETS.pg}` });
    const cap = captureLog();
    rt = await openRuntime(cfg, cap.log, { migrate: false });
    expect(cap.text()).toContain('using PostgreSQL');
    expect(leaked(cap.text())).toEqual([]);
  });

  it('a configuration error quotes a bad URL without its password, even when it cannot be parsed', () => {
    const bad = {
      MSGX_DATABASE_URL: `mysql://msgx:${SECRETS.pg}@db/msgx`, // wrong scheme, parseable
      MSGX_READ_DATABASE_URL: `postgres//msgx_api:${SECRETS.read}@db/msgx`, // missing ':', not a URL at all
      MSGX_MAILBOX_MYSQL_URL: `mysql://aodb:${SECRETS.mysql}@db:notaport/aodb`, // invalid port
    };
    let err: unknown;
    try {
      loadConfig(bad);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as ConfigError).message;
    expect(message).toContain('MSGX_DATABASE_URL');
    expect(message).toContain('MSGX_READ_DATABASE_URL');
    expect(message).toContain('MSGX_MAILBOX_MYSQL_URL');
    expect(leaked(message)).toEqual([]);
  });
});
