/**
 * Secrets never logged, on the failure path: the errors PostgreSQL and MariaDB drivers raise when a
 * connection is refused or denied — logged as `{ err }`, as the services do at their boundary —
 * name host and user, never the password that was in the URL.
 */
import mysql from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { createPool } from '../../src/platform/db.ts';
import { TEST_MYSQL_ADMIN_URL, TEST_PG_ADMIN_URL } from '../support/databases.ts';
import { captureLog } from './support/captureLog.ts';

function withPassword(url: string, password: string, over: { user?: string; port?: string; db?: string } = {}): string {
  const u = new URL(url);
  u.password = password;
  if (over.user) u.username = over.user;
  if (over.port) u.port = over.port;
  if (over.db) u.pathname = `/${over.db}`;
  return u.toString();
}

describe('secrets never logged: driver errors', () => {
  it('a refused or denied connection is logged with host and user only', async () => {
    const cap = captureLog();
    const secrets: string[] = [];
    const secret = () => {
      const s = `S3cret-${secrets.length}-${Math.random().toString(36).slice(2)}`;
      secrets.push(s);
      return s;
    };
    const pgUrls = [
      withPassword(TEST_PG_ADMIN_URL, secret(), { port: '1' }), // nothing listens
      withPassword(TEST_PG_ADMIN_URL, secret(), { user: 'msgx_no_such_user', db: 'msgx_no_such_db' }), // refused by the server
    ];
    for (const url of pgUrls) {
      const pool = createPool(url, { max: 1 });
      await pool.query('SELECT 1').then(
        () => expect.unreachable('connection should fail'),
        (err: unknown) => cap.log.error({ err }, 'postgres unreachable'),
      );
      await pool.end();
    }
    const myUrls = [
      withPassword(TEST_MYSQL_ADMIN_URL, secret(), { port: '1' }),
      withPassword(TEST_MYSQL_ADMIN_URL, secret(), { user: 'msgx_no_such_user' }),
    ];
    for (const uri of myUrls) {
      const pool = mysql.createPool({ uri, connectTimeout: 5000 });
      await pool.query('SELECT 1').then(
        () => expect.unreachable('connection should fail'),
        (err: unknown) => cap.log.error({ err }, 'mailbox unreachable'),
      );
      await pool.end();
    }
    const out = cap.text();
    expect(out.split('\n').filter(Boolean)).toHaveLength(4);
    expect(out).toContain('msgx_no_such_user'); // the errors do say who was refused
    expect(secrets.filter((s) => out.includes(s))).toEqual([]);
  });
});
