/**
 * Time travel over an archived month (docs/operations.md "Archive a month"): flight(asOf) whose
 * history may lie in an archived month answers the error ARCHIVED naming the file `msgx restore`
 * takes, never a state folded from part of the history; a flight whose kept history begins with its
 * creation answers as before.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Change } from '../../src/domain/changes.ts';
import { emptyFields } from '../../src/domain/fields.ts';
import { emptyLists } from '../../src/domain/lists.ts';
import { HISTORY_TABLES } from '../../src/log/historyMonths.ts';
import { archiveHistory } from '../../src/operations/archive/archiveHistory.ts';
import { noFaults } from '../../src/platform/faults.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import { flightAsOf } from '../../src/read-api/asOf/flightAsOf.ts';
import { foldFingerprint } from '../../src/write/snapshot/foldFingerprint.ts';
import { foldModelUpTo } from '../../src/write/snapshot/foldUpTo.ts';
import { saveSnapshot } from '../../src/write/snapshot/saveSnapshot.ts';
import { encodeImage } from '../../src/write/snapshot/snapshotCodec.ts';
import { appendBatch } from '../support/decisions.ts';
import { fileDatabase } from '../support/fileDatabase.ts';
import { createHarness, type Harness } from './support/harness.ts';

const db = fileDatabase('asofarchived');
let h: Harness;
let dir: string;

const created = (flid: string, day: string): Change => ({
  type: 'FlightCreated', flid, operationDay: day,
  fields: { ...emptyFields(), airline: 'CA', flightNo: `CA${flid}`, direction: 'A', scheduledTime: `${day}T01:30:00.000Z` }, lists: emptyLists(),
});
const remark = (flid: string, text: string): Change => ({ type: 'FlightUpdated', flid, fields: { publicRemark: text } });

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'msgx-asof-archive-'));
  for (const m of ['2026-01-01', '2026-02-01']) {
    for (const { table } of HISTORY_TABLES) await db.pool.query('SELECT msgx_month_partition($1, $2::date)', [table, m]);
  }
  // January (archived below): 700 created and changed. February (kept): 700 changed, 702 created and changed.
  await appendBatch(db.pool, [
    { position: '1', msgId: '1', flids: ['700'], recordedAt: '2026-01-05T01:00:00Z', payload: { changes: [created('700', '2026-01-05')] } },
    { position: '2', msgId: '2', flids: ['700'], recordedAt: '2026-01-05T02:00:00Z', payload: { changes: [remark('700', 'jan')] } },
    { position: '3', msgId: '3', flids: ['700'], recordedAt: '2026-02-03T01:00:00Z', payload: { changes: [remark('700', 'feb')] } },
    { position: '4', msgId: '4', flids: ['702'], recordedAt: '2026-02-04T01:00:00Z', payload: { changes: [created('702', '2026-02-04')] } },
    { position: '5', msgId: '5', flids: ['702'], recordedAt: '2026-02-04T02:00:00Z', payload: { changes: [remark('702', 'kept')] } },
  ]);
  const image = (await foldModelUpTo(db.pool, '2')).capture();
  await saveSnapshot(db.pool, { position: '2', fingerprint: foldFingerprint(), latestDay: image.latestDay, flights: image.flights.size, body: await encodeImage(image), writeMs: 1 });
  await archiveHistory({ pool: db.pool, log: silentLogger, faults: noFaults, now: () => new Date('2026-03-10T00:00:00Z') }, '2026-02', dir, 'test');
  h = createHarness(db.pool);
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('flight(asOf) over an archived month', () => {
  const file = () => path.join(dir, 'msgx-history-2026-01.sha256');

  it('answers ARCHIVED naming the file when asOf falls in the archived month, or the flight began there', async () => {
    for (const [flid, asOf] of [['700', '2026-01-20T00:00:00Z'], ['700', '2026-02-10T00:00:00Z'], ['999', '2026-02-10T00:00:00Z']] as const) {
      await expect(flightAsOf(db.pool, flid, asOf)).rejects.toThrow(
        `flight ${flid} as of ${asOf}: its history may lie in archived month 2026-01; restore msgx restore ${file()}, or ask without asOf`,
      );
    }
    const r = await h.gql('query($t: DateTime) { flight(flid: "700", asOf: $t) { flid publicRemark } }', { t: '2026-02-10T08:00:00+08:00' });
    expect(r.errors?.[0]).toMatchObject({ extensions: { code: 'ARCHIVED', file: file() } });
    expect(r.errors?.[0]?.message).toContain(`msgx restore ${file()}`);
  });

  it('answers as before for a flight whose kept history begins with its creation', async () => {
    expect(await flightAsOf(db.pool, '702', '2026-02-10T00:00:00Z')).toMatchObject({ flid: '702', publicRemark: 'kept' });
    expect(await flightAsOf(db.pool, '702', '2026-02-03T00:00:00Z')).toBeNull();
    expect(await flightAsOf(db.pool, '702', '2026-01-20T00:00:00Z')).toBeNull();
    const r = await h.gql('query($t: DateTime) { flight(flid: "702", asOf: $t) { flid publicRemark } }', { t: '2026-02-10T08:00:00+08:00' });
    expect(r).toEqual({ data: { flight: { flid: '702', publicRemark: 'kept' } } });
  });
});
