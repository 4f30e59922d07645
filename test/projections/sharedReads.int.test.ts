/**
 * Shared reads (src/projections/sharedReads.ts): projectors of one process read each decision from
 * the log once; the others get the same events without PostgreSQL sending their changes again.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readDecisionsAfter, readDecisionsAfterHolding } from '../../src/log/readDecisions.ts';
import { createSharedReads } from '../../src/projections/sharedReads.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { appendAll } from '../support/decisions.ts';
import { readScenario } from '../support/corpusDir.ts';
import { decideMessages } from './support/corpus.ts';

let db: TestDatabase;
let head: number;
beforeEach(async () => {
  db = await createTestDatabase('sharedreads');
  const { decisions } = decideMessages(readScenario('01-plan-and-operations').files.map((f) => f.xml));
  head = (await appendAll(db.pool, decisions)).length;
});
afterEach(async () => {
  await db.drop();
});

describe('shared reads', () => {
  it('give every projector the log as readDecisionsAfter reads it, and the second one the very same events', async () => {
    const reads = createSharedReads();
    const flights = reads.reader('flights');
    const outbox = reads.reader('outbox');
    const want = await readDecisionsAfter(db.pool, '0', 500);
    expect(want.length).toBe(head);
    expect(want.some((e) => (e.changes?.length ?? 0) > 0)).toBe(true);

    const [a, b] = await Promise.all([flights(db.pool, '0', 500), outbox(db.pool, '0', 500)]);
    expect(a).toEqual(want);
    expect(b).toEqual(want);
    // Read once: the outbox reader was handed the flight reader's objects.
    b.forEach((e, i) => expect(e).toBe(a[i]));
  });

  it('ask PostgreSQL for the columns only of the events they hold', async () => {
    const all = await readDecisionsAfter(db.pool, '0', 500);
    const withChanges = all.filter((e) => (e.changes?.length ?? 0) > 0).map((e) => e.position);
    const rows = await readDecisionsAfterHolding(db.pool, '0', 500, withChanges);
    expect(rows.filter((r) => r.held).map((r) => r.position)).toEqual(withChanges);
    expect(rows.filter((r) => r.held).every((r) => r.changes === null)).toBe(true);
    expect(rows.map(({ held: _, changes: __, ...r }) => r)).toEqual(all.map(({ changes: _, ...r }) => r));
  });

  it('serve batches of different sizes and starting points, and let go of what every projector has read past', async () => {
    const reads = createSharedReads();
    const flights = reads.reader('flights');
    const outbox = reads.reader('outbox');
    const want = await readDecisionsAfter(db.pool, '0', 500);
    const first = await flights(db.pool, '0', 500);
    expect(reads.held()).toBeGreaterThan(0);
    // The outbox reads in small batches from its own checkpoint.
    const got = [];
    let after = '0';
    for (;;) {
      const page = await outbox(db.pool, after, 3);
      if (page.length === 0) break;
      got.push(...page);
      after = page.at(-1)!.position;
    }
    expect(got).toEqual(want);
    got.forEach((e, i) => expect(e).toBe(first[i]));
    // Both have asked for what follows the head: nothing is held any more.
    await flights(db.pool, String(head), 500);
    expect(reads.held()).toBe(0);
  });

  it('hold no more changes than their bound, and still read the log right beyond it', async () => {
    const reads = createSharedReads({ changes: 2 });
    const flights = reads.reader('flights');
    const outbox = reads.reader('outbox');
    const want = await readDecisionsAfter(db.pool, '0', 500);
    expect(await flights(db.pool, '0', 500)).toEqual(want);
    const held = reads.held();
    expect(held).toBeLessThan(want.filter((e) => (e.changes?.length ?? 0) > 0).length);
    expect(await outbox(db.pool, '0', 500)).toEqual(want);
  });

  it("hand out the writer's offered events as read, once every projector reads close enough to them", async () => {
    const reads = createSharedReads({ events: 10 });
    const flights = reads.reader('flights');
    const outbox = reads.reader('outbox');
    const want = await readDecisionsAfter(db.pool, '0', 500);
    const last = want.at(-1)!.position;
    // Not before each projector has read once: where they are is not known.
    expect(reads.wants(last)).toBe(false);
    await flights(db.pool, String(head - 6), 1); // reads head - 5: none of the offered ones below is held yet
    await outbox(db.pool, String(head - 6), 1);
    expect(reads.wants(last)).toBe(true);
    expect(reads.wants(String(head + 20))).toBe(false); // beyond the events held at most
    // The writer's copies (here: read on another path) are what the projectors get, not a new read.
    const offered = (await readDecisionsAfter(db.pool, String(head - 4), 4)).filter((e) => (e.changes?.length ?? 0) > 0);
    expect(offered.length).toBeGreaterThan(0);
    reads.offer(offered);
    const got = await flights(db.pool, String(head - 4), 4);
    expect(got).toEqual(want.slice(-4));
    for (const e of offered) expect(got.find((g) => g.position === e.position)).toBe(e);
  });

  it('tell when every projector has passed a position, or give up after the bound', async () => {
    const reads = createSharedReads();
    const flights = reads.reader('flights');
    const outbox = reads.reader('outbox');
    let passed = false;
    const waiting = reads.passed('3', 60_000).then(() => {
      passed = true;
    });
    await flights(db.pool, '3', 500); // asks after 3: flights has committed up to 3
    await Promise.resolve();
    expect(passed).toBe(false); // outbox has not
    await outbox(db.pool, '5', 500);
    await waiting;
    expect(passed).toBe(true);
    await reads.passed('2', 60_000); // already passed
    await reads.passed(String(head + 1), 1); // nobody gets there: the bound ends the wait
  });
});
