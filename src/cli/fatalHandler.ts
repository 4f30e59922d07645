import type { Logger } from '../platform/logger.ts';

/** Exit code of a process that stopped on an unexpected error (a supervisor restarts it). */
export const FATAL_EXIT_CODE = 70;

type ProcessEvents = Pick<NodeJS.Process, 'on' | 'off'>;

/**
 * Process-level last resort: an exception nothing caught, or a promise rejection nobody handled,
 * is logged once at fatal level and the process exits non-zero at once. A process that kept
 * running after one would be half alive (a service loop dead, the writer lock still held, so no
 * standby could take over). Returns a function that removes the handlers.
 */
export function installFatalHandler(proc: ProcessEvents, log: Logger, exit: (code: number) => void): () => void {
  let fired = false;
  const onFatal = (kind: string) => (err: unknown) => {
    if (fired) return;
    fired = true;
    try {
      log.fatal({ err }, `${kind}: msgx stops (exit code ${FATAL_EXIT_CODE})`);
      log.flush();
    } finally {
      exit(FATAL_EXIT_CODE);
    }
  };
  const onException = onFatal('uncaught exception');
  const onRejection = onFatal('unhandled promise rejection');
  proc.on('uncaughtException', onException);
  proc.on('unhandledRejection', onRejection);
  return () => {
    proc.off('uncaughtException', onException);
    proc.off('unhandledRejection', onRejection);
  };
}
