/**
 * A sampling profiler of PostgreSQL work for a child process we cannot instrument: every
 * `intervalMs` it reads pg_stat_activity for the bench database and counts the statements that are
 * active (running or waiting in the server). samples × interval ≈ server-side time per statement.
 */
import pg from 'pg';

export interface ActivitySampler {
  stop(): Promise<{ sql: string; approxMs: number; samples: number }[]>;
}

export async function sampleActivity(url: string, database: string, intervalMs = 25): Promise<ActivitySampler> {
  const c = new pg.Client({ connectionString: url, application_name: 'msgx-bench-sampler' });
  await c.connect();
  const counts = new Map<string, number>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await c.query<{ q: string }>(
        `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS q FROM pg_stat_activity
          WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid() AND application_name <> 'msgx-bench-probe'`,
        [database],
      );
      for (const r of rows) counts.set(r.q, (counts.get(r.q) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await c.end();
      return [...counts]
        .map(([sql, samples]) => ({ sql, samples, approxMs: samples * intervalMs }))
        .sort((a, b) => b.samples - a.samples)
        .slice(0, 10);
    },
  };
}
