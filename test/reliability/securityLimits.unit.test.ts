/**
 * docs/security.md, the parts that need no connection: GraphQL cost/depth/alias analysis, the security
 * headers, the cross-site check, the process-level fatal handler and the HTTP defaults.
 */
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import type http from 'node:http';
import { buildSchema, getIntrospectionQuery, parse, validate, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { FATAL_EXIT_CODE, installFatalHandler } from '../../src/cli/fatalHandler.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { crossSiteRefusal } from '../../src/platform/http/crossSite.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { costLimitRule, MAX_ALIASES } from '../../src/read-api/graphql/costLimit.ts';
import { depthLimitRule } from '../../src/read-api/graphql/depthLimit.ts';
import { analyseOperation } from '../../src/read-api/graphql/queryAnalysis.ts';
import { requestPath } from '../../src/read-api/httpServer.ts';
import { parseDateTime, parseDay } from '../../src/read-api/graphql/scalars.ts';
import { cpuTimed } from '../support/cpuTime.ts';

const schema = buildSchema(readFileSync(new URL('../../src/read-api/graphql/schema.graphql', import.meta.url), 'utf8'));
const errorsOf = (q: string) => validate(schema, parse(q), [depthLimitRule(), costLimitRule()]).map((e) => e.message);
const summary = (q: string) => {
  const doc = parse(q);
  return analyseOperation(schema, doc, doc.definitions.find((d) => d.kind === 'OperationDefinition') as OperationDefinitionNode);
};

/** fragment F<n> spreads F<n-1> twice: the expansion has 2^n leaves, the document n fragments. */
function fragmentTree(levels: number, leaf = 'flid'): string {
  let frags = `fragment F0 on Flight { ${leaf} }\n`;
  for (let i = 1; i <= levels; i++) frags += `fragment F${i} on Flight { a${i}: flid ...F${i - 1} ...F${i - 1} }\n`;
  return `{ flights(first: 1) { edges { node { ...F${levels} } } } }\n${frags}`;
}

describe('GraphQL query analysis', () => {
  it('measures a 40-level fragment tree in linear time (memoised fragments)', () => {
    const { value: s, ms } = cpuTimed(() => summary(fragmentTree(40, 'rawXmlLess: flid')));
    expect(ms).toBeLessThan(500);
    expect(s.aliases).toBeGreaterThan(2 ** 40);
    expect(errorsOf(fragmentTree(40)).join('\n')).toMatch(/aliased fields; the limit is 100/);
  });

  it('does not subtract a negative first, even under @skip, and refuses it', () => {
    const many = Array.from({ length: 5 }, (_, i) => `f${i}: flights(first: 500) { totalCount }`).join(' ');
    const errors = errorsOf(`{ neg: flights(first: -1000) @skip(if: true) { totalCount } ${many} }`);
    expect(errors).toContain('first must be between 0 and 500 (got -1000 on neg)');
    expect(errors.some((e) => /2500 rows/.test(e))).toBe(true);
    expect(errorsOf('{ flights(first: 501) { totalCount } }')).toEqual(['first must be between 0 and 500 (got 501 on flights)']);
  });

  it('does not count literally skipped selections, and counts variable-guarded ones', () => {
    const five = (dir: string) => Array.from({ length: 5 }, (_, i) => `f${i}: flights(first: 500) ${dir} { totalCount }`).join(' ');
    expect(summary(`{ ${five('@skip(if: true)')} }`).rows).toBe(0);
    expect(summary(`{ ${five('@include(if: false)')} }`).rows).toBe(0);
    expect(summary(`query ($s: Boolean!) { ${five('@skip(if: $s)')} }`).rows).toBe(2500);
    expect(summary(`{ ... @skip(if: true) { ${five('')} } }`).rows).toBe(0);
  });

  it('counts list fields per row and the costly scalars', () => {
    const board = summary('{ flights(first: 500) { edges { node { flid stands { code } gates { code } } } } }');
    expect(board.rows).toBe(500);
    expect(board.cost).toBe(500 + 500 * 2);
    expect(summary('{ message(id: "1") { rawXml } }').cost).toBeGreaterThan(summary('{ message(id: "1") { state } }').cost + 100);
    expect(summary('{ flight(flid: "1", asOf: "2025-03-14T00:00:00Z") { flid } }').cost).toBeGreaterThan(summary('{ flight(flid: "1") { flid } }').cost);
    expect(summary('{ pipeline { backlog } }').cost).toBeGreaterThanOrEqual(200);
    expect(summary('{ flightHistory(flid: "1", first: 100) { edges { node { payload } } } }').cost).toBe(100 + 100 * 5);
    const rawXml = Array.from({ length: 21 }, (_, i) => `m${i}: message(id: "${i}") { rawXml }`).join(' ');
    expect(errorsOf(`{ ${rawXml} }`).join('\n')).toMatch(/query costs \d+; the limit is 10000/);
  });

  it('caps aliases', () => {
    const q = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    expect(errorsOf(q(MAX_ALIASES))).toEqual([]);
    expect(errorsOf(q(MAX_ALIASES + 1))).toEqual([`query has ${MAX_ALIASES + 1} aliased fields; the limit is ${MAX_ALIASES}`]);
  });

  it('bounds introspection: GraphiQL-style queries pass, nested type lists do not', () => {
    expect(errorsOf(getIntrospectionQuery())).toEqual([]);
    expect(errorsOf(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true }))).toEqual([]);
    expect(errorsOf('{ __schema { types { name fields { name args { name type { kind ofType { kind ofType { name } } } } } } } }')).toEqual([]);
    expect(errorsOf('{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }').join('\n')).toMatch(/introspection nests 4 lists/);
    let deep = 'name';
    for (let i = 0; i < 20; i++) deep = `ofType { ${deep} }`;
    expect(errorsOf(`{ __type(name: "Flight") { ${deep} } }`).join('\n')).toMatch(/introspection is nested 22 levels deep/);
  });
});

describe('DateTime and Date arguments refuse days that do not exist', () => {
  it.each(['2025-02-30T10:00:00Z', '2025-04-31T00:00:00+08:00', '2025-01-01T24:00:00Z', '0000-01-01T00:00:00Z', '2025-01-01T10:00:00+16:00'])(
    'refuses %s',
    (v) => expect(() => parseDateTime(v)).toThrow(expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT' } })),
  );
  it('accepts 29 Feb of a leap year and refuses it otherwise', () => {
    expect(parseDateTime('2024-02-29T10:00:00+08:00')).toBe('2024-02-29T02:00:00.000Z');
    expect(parseDay('2024-02-29')).toBe('2024-02-29');
    expect(() => parseDay('2025-02-29')).toThrow(/Date must be YYYY-MM-DD/);
    expect(() => parseDay('0000-01-01')).toThrow(/Date must be YYYY-MM-DD/);
  });
});

function fakeRequest(headers: Record<string, string>): http.IncomingMessage {
  return { headers } as unknown as http.IncomingMessage;
}

describe('cross-site refusal', () => {
  it('refuses browser cross-site requests and lets tools and the own origin through', () => {
    expect(crossSiteRefusal(fakeRequest({ host: 'msgx:4000' }), [])).toBeUndefined();
    expect(crossSiteRefusal(fakeRequest({ host: 'msgx:4000', origin: 'http://msgx:4000' }), [])).toBeUndefined();
    expect(crossSiteRefusal(fakeRequest({ host: 'msgx:4000', 'sec-fetch-site': 'same-origin' }), [])).toBeUndefined();
    expect(crossSiteRefusal(fakeRequest({ host: 'msgx:4000', origin: 'http://evil.example' }), [])).toMatch(/not in MSGX_ALLOWED_ORIGINS/);
    expect(crossSiteRefusal(fakeRequest({ host: 'msgx:4000', origin: 'null' }), [])).toMatch(/not in MSGX_ALLOWED_ORIGINS/);
    expect(crossSiteRefusal(fakeRequest({ host: 'msgx:4000', 'sec-fetch-site': 'cross-site' }), [])).toMatch(/Sec-Fetch-Site/);
    expect(crossSiteRefusal(fakeRequest({ host: 'msgx:4000', origin: 'https://ops.example' }), ['https://ops.example'])).toBeUndefined();
  });
});

describe('HTTP', () => {
  it('finds no path in a malformed request target instead of throwing', () => {
    expect(requestPath('//[')).toBeUndefined();
    expect(requestPath('http://[::1')).toBeUndefined();
    expect(requestPath('/graphql?x=1')).toBe('/graphql');
  });

  it('binds to loopback unless MSGX_HTTP_HOST says otherwise; CORS and compat senders off by default', () => {
    const cfg = loadConfig({});
    expect(cfg.http.host).toBe('127.0.0.1');
    expect(cfg.allowedOrigins).toEqual([]);
    expect(cfg.compatSenders).toBeUndefined();
    expect(loadConfig({ MSGX_ALLOWED_ORIGINS: 'https://ops.example:8443, http://console.local' }).allowedOrigins).toEqual([
      'https://ops.example:8443',
      'http://console.local',
    ]);
    expect(() => loadConfig({ MSGX_ALLOWED_ORIGINS: '*' })).toThrow(/MSGX_ALLOWED_ORIGINS/);
    expect(loadConfig({ MSGX_COMPAT_SENDERS: 'AODB, CIIMS' }).compatSenders).toEqual(['AODB', 'CIIMS']);
  });
});

describe('process-level fatal handler', () => {
  it('logs an uncaught exception or unhandled rejection at fatal level once and exits non-zero', () => {
    for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
      const proc = new EventEmitter();
      const lines: string[] = [];
      const log = createLogger('info', { write: (l: string) => void lines.push(l) } as unknown as NodeJS.WritableStream);
      const exits: number[] = [];
      const remove = installFatalHandler(proc as unknown as NodeJS.Process, log, (code) => exits.push(code));
      proc.emit(event, new Error('boom'));
      proc.emit(event, new Error('again'));
      expect(exits).toEqual([FATAL_EXIT_CODE]);
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: 60, err: { message: 'boom' } });
      remove();
      expect(proc.listenerCount(event)).toBe(0);
    }
  });
});

describe('configuration errors never echo a password', () => {
  it.each([
    'postgres:msgx:hunter2',
    'postgres:hunter2',
    'postgres://msgx:hunter2@[bad/db',
    'postgres://msgx:hun#ter2@host/db',
    'postgres//msgx:hunter2@host/db',
    'hunter2',
  ])('%s', (value) => {
    let message = '';
    try {
      loadConfig({ MSGX_DATABASE_URL: value });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/MSGX_DATABASE_URL/);
    expect(message).not.toMatch(/hunter2|hun#ter2/);
  });
});

describe('client errors', () => {
  it('a value the database refuses is BAD_USER_INPUT, logged at info without a stack', async () => {
    const { createHarness } = await import('../read-api/support/harness.ts');
    const { captureLog } = await import('./support/captureLog.ts');
    const captured = captureLog('debug');
    const refusing = {
      query: async () => {
        throw Object.assign(new Error('value "99999999999999999999" is out of range for type bigint'), { code: '22003' });
      },
    };
    const h = createHarness({} as never, { db: refusing as never, log: captured.log });
    const r = await h.gql('{ flights { totalCount } }');
    expect(r.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    const lines = captured.text().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { level: number; err?: unknown });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => l.level <= 30 && l.err === undefined)).toBe(true);
    expect(captured.text()).not.toMatch(/"stack"/);
  });
});
