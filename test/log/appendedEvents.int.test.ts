/**
 * The events of an append as the writer hands them to its projectors (src/log/appendedEvents.ts)
 * are the events readDecisionsAfter reads back from the log, value for value.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendDecisions, appendValues, lockPipeline } from '../../src/log/appendDecisions.ts';
import { appendedEvents } from '../../src/log/appendedEvents.ts';
import { readDecisionsAfter } from '../../src/log/readDecisions.ts';
import { withTransaction } from '../../src/platform/db.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { toNewDecision } from '../support/decisions.ts';
import { readScenario } from '../support/corpusDir.ts';
import { decideMessages } from '../projections/support/corpus.ts';

let db: TestDatabase;
beforeEach(async () => {
  db = await createTestDatabase('appendedevents');
});
afterEach(async () => {
  await db.drop();
});

describe('appendedEvents', () => {
  it('are the appended decisions as the log reads them back: created flights expanded, every kind, recorded_at to the millisecond', async () => {
    // A plan (created flights with null fields and empty lists), operations, deletes, duplicates.
    const { decisions } = decideMessages(readScenario('01-plan-and-operations').files.map((f) => f.xml));
    const at = new Date('2026-12-06T20:30:01.234Z');
    const news = [...decisions.map(toNewDecision), toNewDecision({ msgId: '999', kind: 'Skipped', payload: { reason: 'duplicate-of:1' }, recordedAt: at })];
    const sent = await withTransaction(db.pool, async (c) => {
      const last = await lockPipeline(c);
      await appendDecisions(c, last, news, at);
      return appendValues(last, news, at);
    });
    const events = appendedEvents({ rows: sent.rows, recordedAt: at });
    expect(events.some((e) => e.changes?.some((c) => c.type === 'FlightCreated'))).toBe(true);
    expect(events.some((e) => e.changes === null)).toBe(true);
    expect(events).toEqual(await readDecisionsAfter(db.pool, '0', 1000));
  });
});
