import { describe, expect, it } from 'vitest';
import { ServiceSequence, type Service } from '../../src/platform/service.ts';

/** A service that records its calls; `gate` (if given) holds its start() until stop() is called. */
function service(name: string, calls: string[], opts: { gate?: boolean; failStop?: boolean } = {}): Service {
  let release: (() => void) | undefined;
  return {
    name,
    start: () => {
      calls.push(`start ${name}`);
      return opts.gate ? new Promise<void>((r) => (release = r)) : Promise.resolve();
    },
    stop: async () => {
      calls.push(`stop ${name}`);
      release?.();
      if (opts.failStop) throw new Error(`${name} would not stop`);
    },
  };
}

describe('ServiceSequence', () => {
  it('starts in order and stops in reverse, logging a failing stop and stopping the rest', async () => {
    const calls: string[] = [];
    const failures: string[] = [];
    const seq = new ServiceSequence((err, name) => failures.push(`${name}: ${(err as Error).message}`));
    await seq.start([service('a', calls), service('b', calls, { failStop: true }), service('c', calls)]);
    await seq.stop();
    expect(calls).toEqual(['start a', 'start b', 'start c', 'stop c', 'stop b', 'stop a']);
    expect(failures).toEqual(['b: b would not stop']);
  });

  it('a stop during start-up stops the starting service too and ends the start', async () => {
    const calls: string[] = [];
    const seq = new ServiceSequence(() => undefined);
    const starting = seq.start([service('a', calls), service('lock', calls, { gate: true }), service('never', calls)]);
    await expect.poll(() => calls).toContain('start lock');
    await seq.stop();
    await expect(starting).rejects.toThrow('stopped during start-up');
    // The lock's start ended inside its stop, so it may be stopped again from the started list
    // (Service.stop must be safe twice); what matters: it is stopped first, nothing after it starts.
    expect(calls.slice(0, 3)).toEqual(['start a', 'start lock', 'stop lock']);
    expect(calls).not.toContain('start never');
    expect(calls.at(-1)).toBe('stop a');
  });
});
