/**
 * An in-process msgx Runtime on a bench database, configured through an explicit environment
 * (never this process's MSGX_* variables), logging warnings and worse to stderr.
 */
import { loadConfig } from '../../src/platform/config.ts';
import { createLogger, type Logger } from '../../src/platform/logger.ts';
import { openRuntime, type Runtime } from '../../src/platform/runtime.ts';
import { createBenchPg, type BenchPg } from './databases.ts';

/** Settings every bench process of msgx shares (in-process and children). */
export const BENCH_ENV: Readonly<Record<string, string>> = Object.freeze({
  // The generated days lie in 2025; keep them live instead of letting the history sweep archive them.
  MSGX_HISTORY_KEEP_DAYS: '36500',
  MSGX_AIRPORT_TZ: 'Asia/Shanghai',
});

export const BENCH_TZ = BENCH_ENV.MSGX_AIRPORT_TZ!;

let logger: Logger | undefined;

/** The bench's one logger (pino, stderr, warn and worse unless MSGX_BENCH_LOG_LEVEL says otherwise). */
export function benchLogger(): Logger {
  logger ??= createLogger(process.env.MSGX_BENCH_LOG_LEVEL ?? 'warn', process.stderr);
  return logger;
}

export async function openBenchRuntime(databaseUrl: string, env: Record<string, string> = {}, poolMax = 6): Promise<Runtime> {
  const cfg = loadConfig({ ...BENCH_ENV, MSGX_DATABASE_URL: databaseUrl, ...env });
  return openRuntime(cfg, benchLogger(), { poolMax });
}

/** Run `body` on a runtime over a fresh migrated database `label`, closed and dropped whatever happens. */
export async function withBenchRuntime<T>(
  label: string,
  env: Record<string, string>,
  poolMax: number,
  body: (rt: Runtime, db: BenchPg) => Promise<T>,
): Promise<T> {
  const db = await createBenchPg(label);
  const rt = await openBenchRuntime(db.url, env, poolMax);
  try {
    return await body(rt, db);
  } finally {
    await rt.close();
    await db.drop();
  }
}
