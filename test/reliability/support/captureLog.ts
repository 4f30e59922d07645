/** The production logger (createLogger) writing into memory, so a test can read every line. */
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../../src/platform/logger.ts';

export interface CapturedLog {
  readonly log: Logger;
  /** Everything written so far (NDJSON lines). */
  text(): string;
}

export function captureLog(level = 'trace'): CapturedLog {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { log: createLogger(level, sink), text: () => chunks.join('') };
}
