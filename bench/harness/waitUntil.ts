/**
 * Waiting for a condition in the database with a precise time stamp: the probe runs on every
 * NOTIFY of the given channels (so a milestone is seen when it commits) and every `intervalMs` as
 * a fallback. Resolves with the performance.now() at which the probe first returned true.
 */
import pg from 'pg';
import { nowMs } from './stats.ts';

export interface Notifications {
  /** Call `fn` on every notification; returns an unsubscribe function. */
  on(fn: (channel: string, payload: string) => void): () => void;
  close(): Promise<void>;
}

export async function listen(url: string, channels: readonly string[]): Promise<Notifications> {
  const c = new pg.Client({ connectionString: url, application_name: 'msgx-bench-listen' });
  await c.connect();
  for (const ch of channels) await c.query(`LISTEN ${ch}`);
  const subscribers = new Set<(channel: string, payload: string) => void>();
  c.on('notification', (n) => {
    for (const fn of subscribers) fn(n.channel, n.payload ?? '');
  });
  return {
    on(fn) {
      subscribers.add(fn);
      return () => subscribers.delete(fn);
    },
    close: () => c.end(),
  };
}

export function waitUntil(
  probe: () => Promise<boolean>,
  opts: { notifications?: Notifications; intervalMs?: number; timeoutMs: number; what: string },
): Promise<number> {
  return new Promise((resolve, reject) => {
    let running = false;
    let again = false;
    let done = false;
    const finish = (err: Error | null, at?: number) => {
      done = true;
      clearInterval(tick);
      clearTimeout(deadline);
      unsubscribe();
      if (err) reject(err);
      else resolve(at!);
    };
    const check = async (): Promise<void> => {
      if (done) return;
      if (running) {
        again = true;
        return;
      }
      running = true;
      try {
        do {
          again = false;
          if (await probe()) return finish(null, nowMs());
        } while (again && !done);
      } catch (err) {
        finish(err instanceof Error ? err : new Error(String(err)));
      } finally {
        running = false;
      }
    };
    const unsubscribe = opts.notifications?.on(() => void check()) ?? (() => undefined);
    const tick = setInterval(() => void check(), opts.intervalMs ?? 100);
    const deadline = setTimeout(() => finish(new Error(`timed out after ${opts.timeoutMs} ms waiting for ${opts.what}`)), opts.timeoutMs);
    void check();
  });
}
