import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../support/databases.ts';
import { isPendingOutcome, readScenario } from '../support/corpusDir.ts';
import { waitFor } from '../support/waitFor.ts';
import {
  decisions, insertCminmsgs, procStates, startWriter, terminalCounts, testRuntime, unfinished,
} from './support/writeHarness.ts';

const KIND_OF_STATE: Record<string, string> = { SUCCEEDED: 'Applied', SKIPPED: 'Skipped', DEAD: 'Dead', PARKED: 'Parked' };
const MAX_ATTEMPTS = 4;

describe.each(['01-plan-and-operations', '02-bad-input-and-duplicates', '03-plan-snapshots', '04-whole-interface'])('corpus scenario %s through MariaDB CMINMSGS', (name) => {
  let db: TestDatabase;
  let my: TestMailbox;

  beforeAll(async () => {
    [db, my] = await Promise.all([createTestDatabase(`corpus${name.slice(0, 2)}`), createTestMailbox(`corpus${name.slice(0, 2)}`)]);
  });
  afterAll(async () => {
    await Promise.all([db?.drop(), my?.drop()]);
  });

  it('ends with the expected states, one terminal decision per message, and backfilled CMINMSGS', async () => {
    const scenario = readScenario(name);
    const ids: string[] = [];
    for (const f of scenario.files) ids.push(await insertCminmsgs(my, f.xml));
    const rt = testRuntime(db, my, { env: { MSGX_MAX_ATTEMPTS: String(MAX_ATTEMPTS) } });
    const w = await startWriter(rt);
    try {
      await waitFor(async () => (await procStates(db)).length === ids.length && (await unfinished(db)) === 0, { what: 'all messages terminal' });
      await waitFor(async () => (await procStates(db)).every((p) => p.backfill_state === 'DONE'), { what: 'backfill done' });
    } finally {
      await w.stop();
      await rt.close();
    }

    const states = await procStates(db);
    const log = await decisions(db);
    expect(states.map((s) => s.msg_id)).toEqual(ids);
    scenario.expect.messages.forEach((m, i) => {
      if (isPendingOutcome(name, m.file)) return;
      const s = states[i]!;
      expect({ file: m.file, state: s.state }).toEqual({ file: m.file, state: m.state });
      if (m.errorClass) expect(s.error_class).toBe(m.errorClass);
      if (m.lastErrorContains) expect(s.last_error).toContain(m.lastErrorContains);
      // The decisions of this message: retries (Failed) then exactly one terminal one of the right kind.
      const kinds = log.filter((d) => d.msg_id === s.msg_id).map((d) => d.kind);
      const expected = m.errorClass === 'EXHAUSTED'
        ? [...Array(MAX_ATTEMPTS - 1).fill('Failed'), 'Dead']
        : [KIND_OF_STATE[m.state]];
      expect({ file: m.file, kinds }).toEqual({ file: m.file, kinds: expected });
    });
    expect([...terminalCounts(log).values()].every((n) => n === 1)).toBe(true);
    // Strict FIFO: terminal decisions are in message id order.
    const terminalOrder = log.filter((d) => d.kind !== 'Failed').map((d) => BigInt(d.msg_id!));
    expect(terminalOrder).toEqual([...terminalOrder].sort((a, b) => (a < b ? -1 : 1)));
    // Positions are gap-free from 1.
    expect(log.map((d) => Number(d.position))).toEqual(log.map((_, i) => i + 1));

    const [rows] = await my.pool.query('SELECT CMINMSGS_ID AS id, CMINMSGS_STATUS AS status, CMINMSGS_DATE_PROCESSED AS processed FROM CMINMSGS ORDER BY CMINMSGS_ID');
    const byState: Record<string, string> = { SUCCEEDED: 'PROCESSED', SKIPPED: 'SKIPPED', DEAD: 'DEAD', PARKED: 'PARKED' };
    expect((rows as { status: string }[]).map((r) => r.status)).toEqual(states.map((s) => byState[s.state]));
    expect((rows as { processed: string | null }[]).every((r) => r.processed !== null)).toBe(true);
  });
});
