import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { replayCommand } from '../../src/cli/replayCommand.ts';
import { statusCommand } from '../../src/cli/statusCommand.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import type { Runtime } from '../../src/platform/runtime.ts';
import { replay } from '../../src/operations/replay.ts';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../support/databases.ts';
import { waitFor } from '../support/waitFor.ts';
import { MALFORMED_XML, adft, badTime, estt, unsupported } from './support/messages.ts';
import {
  decisions, insertCminmsgs, procStates, startWriter, terminalCounts, testRuntime, unfinished, type Writer,
} from './support/writeHarness.ts';

let db: TestDatabase;
let my: TestMailbox;
let rt: Runtime;
let w: Writer;
let ids: string[];

beforeAll(async () => {
  [db, my] = await Promise.all([createTestDatabase('replay'), createTestMailbox('replay')]);
  ids = [];
  for (const x of [adft(1, '885001'), unsupported(2, '885001'), badTime(3, '885001'), MALFORMED_XML, estt(4, '885001', '14MAR250812')]) {
    ids.push(await insertCminmsgs(my, x));
  }
  rt = testRuntime(db, my, { env: { MSGX_MAX_ATTEMPTS: '2' } });
  w = await startWriter(rt);
  await waitFor(async () => (await procStates(db)).length === 5 && (await unfinished(db)) === 0, { what: 'first pass' });
});
afterAll(async () => {
  await w?.stop();
  await rt?.close();
  await Promise.all([db?.drop(), my?.drop()]);
});

const byId = async () => new Map((await procStates(db)).map((p) => [p.msg_id, p]));

async function cli(cmd: typeof replayCommand, args: string[]): Promise<{ code: number; out: string }> {
  const cfg = loadConfig({ MSGX_DATABASE_URL: db.url, MSGX_MAILBOX_MYSQL_URL: my.url });
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    const code = await cmd.run(args, { cfg, log: silentLogger });
    return { code, out: spy.mock.calls.map((c) => String(c[0])).join('') };
  } finally {
    spy.mockRestore();
  }
}

describe('operator replay', () => {
  it('first pass: UNSUPPORTED and CODEC_ERROR parked at once, MALFORMED dead at once, the good message decided', async () => {
    const s = await byId();
    expect(s.get(ids[1]!)).toMatchObject({ state: 'PARKED', error_class: 'UNSUPPORTED', attempts: 1 });
    expect(s.get(ids[2]!)).toMatchObject({ state: 'PARKED', error_class: 'CODEC_ERROR', attempts: 1 });
    expect(s.get(ids[3]!)).toMatchObject({ state: 'DEAD', error_class: 'MALFORMED', attempts: 1 });
    expect(s.get(ids[4]!)).toMatchObject({ state: 'SUCCEEDED' });
  });

  it('--class CODEC_ERROR replays only the parked message of that class, audited, while the pump runs', async () => {
    const before = (await decisions(db)).length;
    const done = await replay(db.pool, rt.clock, { errorClass: 'CODEC_ERROR', requestedBy: 'test' });
    expect(done.map((r) => r.msgId)).toEqual([ids[2]]);
    expect(done[0]).toMatchObject({ fromState: 'PARKED', errorClass: 'CODEC_ERROR', causeClass: null, attempts: 1 });
    const log = await decisions(db);
    expect(log[before]).toMatchObject({
      msg_id: ids[2],
      kind: 'ReplayRequested',
      payload: { fromState: 'PARKED', errorClass: 'CODEC_ERROR', attempts: 1, requestedBy: 'test' },
    });
    // The running pump decides it again (still undecodable): parked again — one terminal decision since the replay.
    await waitFor(async () => (await decisions(db)).length === before + 2, { what: 're-decision' });
    expect((await decisions(db)).slice(before).map((d) => d.kind)).toEqual(['ReplayRequested', 'Parked']);
    expect((await byId()).get(ids[2]!)).toMatchObject({ state: 'PARKED', error_class: 'CODEC_ERROR', attempts: 1 });
    expect([...terminalCounts(await decisions(db)).values()].every((n) => n === 1)).toBe(true);
  });

  it('--ids and --since narrow the selection; MALFORMED is never touched', async () => {
    expect(await replay(db.pool, rt.clock, { errorClass: 'UNSUPPORTED', since: new Date(Date.now() + 3600_000) })).toEqual([]);
    expect(await replay(db.pool, rt.clock, { errorClass: 'UNSUPPORTED', ids: [ids[3]!, ids[4]!] })).toEqual([]);
    const done = await replay(db.pool, rt.clock, { errorClass: 'UNSUPPORTED', ids: [ids[1]!] });
    expect(done.map((r) => r.msgId)).toEqual([ids[1]]);
    await waitFor(async () => (await byId()).get(ids[1]!)!.state === 'PARKED', { what: 're-decision' });
    expect((await byId()).get(ids[3]!)).toMatchObject({ state: 'DEAD', error_class: 'MALFORMED', attempts: 1 });
    expect((await decisions(db)).filter((d) => d.msg_id === ids[3]).map((d) => d.kind)).toEqual(['Dead']);
  });

  it('a replayed message older than what the flight carries from a later message is Skipped stale, never applied over it', async () => {
    // The codec "learned" to read message 3 (parked: ESTT not-a-time): its stored input now has a
    // readable time, 08:05 — older than the 08:12 that the later message 4 already set.
    await db.pool.query(`UPDATE inbox_message SET raw_xml = replace(raw_xml, 'not-a-time', '14MAR250805') WHERE msg_id = $1`, [ids[2]]);
    const before = (await decisions(db)).length;
    await replay(db.pool, rt.clock, { errorClass: 'CODEC_ERROR', ids: [ids[2]!] });
    await waitFor(async () => (await byId()).get(ids[2]!)!.state === 'SKIPPED', { what: 'stale re-decision' });
    expect((await byId()).get(ids[2]!)).toMatchObject({ state: 'SKIPPED', last_error: 'stale' });
    expect((await decisions(db)).slice(before).map((d) => `${d.kind}:${String(d.payload.reason ?? '')}`)).toEqual(['ReplayRequested:', 'Skipped:stale']);
    expect(w.pump.model.flights.get('885001')!.estimatedTime).toBe('2025-03-14T00:12:00.000Z');
  });

  it('`msgx replay` prints what it did and refuses MALFORMED; `msgx status` reports the pipeline', async () => {
    await expect(cli(replayCommand, ['--class', 'MALFORMED'])).rejects.toThrow(/never replayed/);
    const nothing = await cli(replayCommand, ['--class', 'INFRA']);
    expect(nothing).toEqual({ code: 0, out: 'nothing to replay for class INFRA\n' });
    const one = await cli(replayCommand, ['--class', 'UNSUPPORTED', '--ids', ids[1]!]);
    expect(one.code).toBe(0);
    expect(one.out).toContain(`replayed ${ids[1]}: PARKED(UNSUPPORTED) after 1 attempts -> PENDING`);
    expect(one.out).toContain('1 message(s) back to PENDING');
    await waitFor(async () => (await unfinished(db)) === 0, { what: 'settled' });

    const status = await cli(statusCommand, ['--json']);
    const s = JSON.parse(status.out);
    expect(s).toMatchObject({ backlog: 0, head: null, watermark: ids[4], gaps: { open: 0 } });
    expect(s.lastPosition).toBe(String((await decisions(db)).length));
    expect(s.counts).toEqual(expect.arrayContaining([{ state: 'DEAD', errorClass: 'MALFORMED', n: 1 }, { state: 'PARKED', errorClass: 'UNSUPPORTED', n: 1 }]));
    const text = await cli(statusCommand, []);
    expect(text.out).toContain('failed/dead/parked DEAD(MALFORMED) 1, PARKED(UNSUPPORTED) 1');
    expect(text.out).toContain('head           none');
  });
});
