/**
 * readBatchInSteps: the two-statement readBatch of the MySQL adapter for a server without window
 * functions must cut the same prefix as READ_BATCH does in SQL (mailbox.int.test.ts covers that one).
 */
import { describe, expect, it } from 'vitest';
import { readBatchInSteps } from '../../src/platform/mailbox/mysqlMailbox.ts';
import type { InboxRow } from '../../src/platform/mailbox/port.ts';

const sizes = [
  { id: '1', bytes: 9 },
  { id: '2', bytes: 13 },
  { id: '3', bytes: 9000 },
  { id: '4', bytes: 9 },
];
const asked: string[][] = [];
const readIds = async (ids: readonly string[]): Promise<InboxRow[]> => {
  asked.push([...ids]);
  return ids.map((id) => ({ id, xml: 'x', receivedAt: null }));
};
const ids = async (window: typeof sizes, max: number, spent: number) => {
  const b = await readBatchInSteps(window, readIds, max, spent);
  return [b.rows.map((r) => r.id), b.bytes, b.scanned];
};

describe('readBatchInSteps (MySQL < 8.0 / MariaDB < 10.2)', () => {
  it('takes the prefix that fits the budget, the first row always, and counts the window', async () => {
    expect(await ids(sizes, 1 << 20, 0)).toEqual([['1', '2', '3', '4'], 9031, 4]);
    expect(await ids(sizes.slice(0, 2), 1 << 20, 0)).toEqual([['1', '2'], 22, 2]);
    expect(await ids(sizes, 1000, 0)).toEqual([['1', '2'], 22, 4]);
    expect(await ids(sizes.slice(2), 1000, 0)).toEqual([['3'], 9000, 2]);
  });

  it('with bytes spent before, the first row is no longer free; nothing is read when nothing fits', async () => {
    asked.length = 0;
    expect(await ids(sizes.slice(2), 1000, 500)).toEqual([[], 0, 2]);
    expect(asked).toEqual([]);
    expect(await ids(sizes, 1000, 1000 - 9)).toEqual([['1'], 9, 4]);
    expect(await ids([], 1000, 0)).toEqual([[], 0, 0]);
  });
});
