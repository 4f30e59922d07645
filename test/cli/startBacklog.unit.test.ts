import { describe, expect, it } from 'vitest';
import { startBacklogDecided } from '../../src/cli/writerServices.ts';
import type { PollResult } from '../../src/write/ingest/pollOnce.ts';

const poll = (more: boolean): PollResult => ({ read: more ? 500 : 1, copied: more ? 500 : 1, gapsOpened: 0, gapsAppeared: 0, gapsExpired: 0, watermark: '1', more, bytes: 0 });

describe("the sentinel's start check waits for what waited at the start", () => {
  it('polls the ingest until a poll is not full, then waits for the pump to drain', async () => {
    const calls: string[] = [];
    const answers = [true, true, false];
    await startBacklogDecided(
      {
        pollOnce: async () => {
          calls.push('poll');
          return poll(answers.shift()!);
        },
      },
      { drained: async () => void calls.push('drained') },
    );
    // A message sent while a standby took over is copied before the drain that releases the check.
    expect(calls).toEqual(['poll', 'poll', 'poll', 'drained']);
  });

  it('is not held back by a mailbox that fails, nor by one that never empties', async () => {
    const calls: string[] = [];
    await startBacklogDecided({ pollOnce: async () => { calls.push('poll'); throw new Error('mailbox down'); } }, { drained: async () => void calls.push('drained') });
    expect(calls).toEqual(['poll', 'drained']);
    let polls = 0;
    const full = async () => {
      polls++;
      return poll(true);
    };
    await startBacklogDecided({ pollOnce: full }, { drained: async () => undefined });
    expect(polls).toBe(100);
  });
});
