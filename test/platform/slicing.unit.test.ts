/** src/platform/slicing.ts: a turn after every `every` units of work, none in between. */
import { describe, expect, it } from 'vitest';
import { slicer, createForeground, nextTurn } from '../../src/platform/slicing.ts';

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


describe('foreground work (docs/projections.md "Big decisions")', () => {
  it('holds background turns while it runs and lets them go when it ends', async () => {
    const fg = createForeground(60_000);
    const order: string[] = [];
    const end = fg.enter();
    const background = fg.turn().then(() => order.push('background'));
    // Several turns of the loop pass; the background turn is still held.
    for (let i = 0; i < 5; i++) await nextTurn();
    order.push('foreground done');
    end();
    end(); // a second end does nothing
    await background;
    expect(order).toEqual(['foreground done', 'background']);
  });

  it('lets a background turn go after maxWaitMs even while foreground work runs, and holds none when idle', async () => {
    const fg = createForeground(20);
    await fg.turn(); // idle: one turn of the loop
    fg.enter();
    const held = fg.turn().then(() => 'released');
    await expect(held).resolves.toBe('released');
  });

  it('holds idle() (a projector batch) like a turn, and answers it at once when nothing runs', async () => {
    const fg = createForeground(60_000);
    await fg.idle();
    const end = fg.enter();
    let released = false;
    const batch = fg.idle().then(() => { released = true; });
    for (let i = 0; i < 5; i++) await nextTurn();
    expect(released).toBe(false);
    end();
    await batch;
    expect(released).toBe(true);
  });

  it('waits for every piece of foreground work to end', async () => {
    const fg = createForeground(60_000);
    const endA = fg.enter();
    const endB = fg.enter();
    let released = false;
    const background = fg.turn().then(() => { released = true; });
    endA();
    for (let i = 0; i < 5; i++) await nextTurn();
    expect(released).toBe(false);
    endB();
    await background;
    expect(released).toBe(true);
  });
});
