import { describe, expect, it } from 'vitest';
import { ConfigError, backoffDelay, loadConfig, redactUrl } from '../../src/platform/config.ts';

describe('config', () => {
  it('uses the documented defaults with an empty environment', () => {
    const c = loadConfig({});
    expect(c.databaseUrl).toBeUndefined();
    expect(c.mailboxMysqlUrl).toBeUndefined();
    expect(c.kafka.brokers).toBeUndefined();
    expect(c.http.port).toBe(4000);
    expect(c.pollIntervalMs).toBe(1000);
    expect(c.ingestBatch).toBe(500);
    expect(c.gapTimeoutMs).toBe(60000);
    expect(c.maxAttempts).toBe(5);
    expect(c.backoffMs).toEqual([1000, 2000, 4000, 8000, 16000]);
    expect(c.backoffCapMs).toBe(60000);
    expect(c.headDeadlineMs).toBe(600000);
    expect(c.schdFlushMs).toBe(3000);
    expect(c.schdFlushLimit).toBe(500);
    expect(c.identityIncludeDay).toBe(false);
    expect(c.airportTz).toBe('Asia/Shanghai');
    expect(c.dataDir.endsWith('.msgx')).toBe(true);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('read URL defaults to the write URL', () => {
    const c = loadConfig({ MSGX_DATABASE_URL: 'postgres://a@h/db' });
    expect(c.readDatabaseUrl).toBe('postgres://a@h/db');
  });

  it.each([
    ['MSGX_HTTP_PORT', 'abc'],
    ['MSGX_HTTP_PORT', '70000'],
    ['MSGX_POLL_INTERVAL_MS', '10'],
    ['MSGX_BACKOFF_MS', '1000,x'],
    ['MSGX_AIRPORT_TZ', 'Mars/Base'],
    ['MSGX_DATABASE_URL', 'mysql://x@y/z'],
    ['MSGX_KAFKA_BROKERS', 'nohostport'],
    ['MSGX_IDENTITY_INCLUDE_DAY', 'maybe'],
  ])('rejects %s=%s naming the variable', (name, value) => {
    try {
      loadConfig({ [name]: value });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toContain(name);
      expect((err as ConfigError).problems[0]!.variable).toBe(name);
    }
  });

  it('parses lists and booleans', () => {
    const c = loadConfig({ MSGX_KAFKA_BROKERS: 'k1:9092, k2:9093', MSGX_BACKOFF_MS: '5, 10', MSGX_IDENTITY_INCLUDE_DAY: 'true' });
    expect(c.kafka.brokers).toEqual(['k1:9092', 'k2:9093']);
    expect(c.backoffMs).toEqual([5, 10]);
    expect(c.identityIncludeDay).toBe(true);
  });

  it('backoff follows the table, then repeats its last step, capped', () => {
    const cfg = { backoffMs: [100, 200, 400], backoffCapMs: 300 };
    expect([1, 2, 3, 4, 9].map((a) => backoffDelay(cfg, a))).toEqual([100, 200, 300, 300, 300]);
  });

  it('never echoes a password', () => {
    expect(redactUrl('postgres://u:secret@h/db')).not.toContain('secret');
    try {
      loadConfig({ MSGX_DATABASE_URL: 'http://u:secret@h/db' });
    } catch (err) {
      expect((err as Error).message).not.toContain('secret');
    }
  });
});
