/**
 * The operator actions check their input once (src/operations/inputs.ts): `msgx <action>` and
 * `POST /admin/<action>` refuse the same wrong input with the same one-line message — the CLI as a
 * usage error (exit 2) before it opens a database, the HTTP as 400 with that message.
 */
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands.ts';
import { MAX_IDS } from '../../src/operations/inputs.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { UsageError } from '../../src/platform/errors.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import type { Runtime } from '../../src/platform/runtime.ts';
import { adminRequest } from '../support/adminRequest.ts';

const TOKEN = 'ops:0123456789abcdef';
// No database behind it: an input that passed the check would fail on connecting, not with a UsageError.
const cfg = loadConfig({ MSGX_DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused', MSGX_ADMIN_TOKEN: TOKEN, MSGX_AIRPORT_TZ: 'Asia/Shanghai' });

/** The CLI's refusal: the UsageError's message. */
async function cliRefusal(action: string, args: string[]): Promise<string> {
  const err = await (await commands[action]!()).run(args, { cfg, log: silentLogger }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `msgx ${action} ${args.join(' ').slice(0, 80)}`).toBeInstanceOf(UsageError);
  return (err as UsageError).message;
}

/** The HTTP refusal: status 400 and its `error`. */
async function httpRefusal(action: string, body: unknown): Promise<string> {
  const rt = { cfg, log: silentLogger } as unknown as Runtime;
  const res = await adminRequest(rt, `/admin/${action}`, `Bearer ${TOKEN}`, JSON.stringify(body));
  expect(res.status, `POST /admin/${action} ${res.body}`).toBe(400);
  return (JSON.parse(res.body) as { error: string }).error;
}

const twentyDigits = '12345678901234567890';
const tooMany = Array.from({ length: MAX_IDS + 1 }, (_, i) => String(9_000_000_000_000_000_000n + BigInt(i)));

describe('CLI and HTTP refuse the same inputs with the same message', () => {
  it.each([
    ['an id of 20 digits', 'replay', ['--class', 'INFRA', '--ids', `1,${twentyDigits}`], { class: 'INFRA', ids: ['1', twentyDigits] }],
    [`${MAX_IDS + 1} ids`, 'replay', ['--class', 'INFRA', '--ids', tooMany.join(',')], { class: 'INFRA', ids: tooMany }],
    ['an id that is no number', 'replay', ['--class', 'INFRA', '--ids', '1,2x'], { class: 'INFRA', ids: '1,2x' }],
    ['an empty id list', 'replay', ['--class', 'INFRA', '--ids', ' , '], { class: 'INFRA', ids: [] }],
    ['MALFORMED', 'replay', ['--class', 'MALFORMED'], { class: 'MALFORMED' }],
    ['no class', 'replay', [], {}],
    ['a since that is no time', 'replay', ['--class', 'INFRA', '--since', 'yesterday'], { class: 'INFRA', since: 'yesterday' }],
    ['an event id of 20 digits', 'replay-deliveries', ['--target', 'KAFKA_MSG', '--ids', twentyDigits], { target: 'KAFKA_MSG', ids: [twentyDigits] }],
    [`${MAX_IDS + 1} event ids`, 'replay-deliveries', ['--target', 'KAFKA_MSG', '--ids', tooMany.join(',')], { target: 'KAFKA_MSG', ids: tooMany }],
    ['an unknown target', 'replay-deliveries', ['--target', 'KAFKA'], { target: 'KAFKA' }],
    ['no from', 'request-plan', ['--to', '2025-03-15T23:59'], { to: '2025-03-15T23:59' }],
    ['a from that is no time', 'request-plan', ['--from', '15/03/2025', '--to', '2025-03-15T23:59'], { from: '15/03/2025', to: '2025-03-15T23:59' }],
    ['to before from', 'request-plan', ['--from', '2025-03-15T12:00', '--to', '2025-03-15T11:00'], { from: '2025-03-15T12:00', to: '2025-03-15T11:00' }],
    ['an unknown kind', 'request-reference', ['--kind', 'AIRL,NOPE'], { kinds: 'AIRL,NOPE' }],
  ])('%s (%s)', async (_case, action, args, body) => {
    const cli = await cliRefusal(action, args);
    expect(cli).not.toContain('\n');
    expect(cli.length).toBeLessThan(300); // a long list is cut, never echoed whole
    expect(await httpRefusal(action, body)).toBe(cli);
  });

  it('names the bound in the message', async () => {
    expect(await cliRefusal('replay', ['--class', 'INFRA', '--ids', twentyDigits])).toBe(`ids must be whole numbers of 1 to 19 digits (got '${twentyDigits}')`);
    expect(await httpRefusal('replay', { class: 'INFRA', ids: tooMany })).toBe(`ids: at most ${MAX_IDS} in one request (got ${MAX_IDS + 1})`);
  });
});
