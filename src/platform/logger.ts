import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * One structured logger for the process. Roles take child scopes:
 * `logger.child({ role: 'pump' })`, then `.child({ msgId })`.
 * Secrets: URLs are redacted by config before logging; the `password` keys are censored here too.
 * Logs go to stderr (fd 2): stdout is for a command's results (`msgx status --json | jq`).
 */
export function createLogger(level: string = 'info', destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { svc: 'msgx' },
      redact: { paths: ['password', '*.password', 'connectionString', '*.connectionString'], censor: '***' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? pino.destination({ fd: 2, sync: true }),
  );
}

/** A logger that drops everything (tests that don't care about logs). */
export const silentLogger: Logger = pino({ level: 'silent' });
