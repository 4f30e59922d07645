/** src/platform/slicing.ts: a turn after every `every` units of work, none in between. */
import { expect, it } from 'vitest';
import { slicer } from '../../src/platform/slicing.ts';

it('turns once per `every` ticks, on the last tick of each slice', async () => {
  let turns = 0;
  const s = slicer({ every: 3, turn: async () => { turns += 1; } });
  const turnedAt: number[] = [];
  for (let i = 1; i <= 10; i++) {
    const t = s.tick();
    if (t) {
      await t;
      turnedAt.push(i);
    }
  }
  expect(turnedAt).toEqual([3, 6, 9]);
  expect(turns).toBe(3);
});

