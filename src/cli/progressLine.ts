/**
 * Progress of a long command on stderr: on a terminal one line rewritten in place, otherwise
 * (a log file, a pipe, CI) one plain line per report.
 */
/** Where a progress line goes: a stream's TTY facts and its write (process.stderr, or a test's recorder). */
export interface ProgressOutput {
  readonly isTTY?: boolean;
  readonly columns?: number;
  write(text: string): unknown;
}

export interface ProgressLine {
  update(text: string): void;
  /** End the in-place line (a no-op when not on a terminal). */
  done(): void;
}

export function createProgressLine(stream: ProgressOutput = process.stderr): ProgressLine {
  const tty = stream.isTTY === true;
  let open = false;
  return {
    update(text) {
      if (tty) {
        const width = Math.max(20, (stream.columns ?? 80) - 1);
        stream.write(`\r\x1b[K${text.length > width ? text.slice(0, width - 1) + '…' : text}`);
        open = true;
      } else {
        stream.write(`${text}\n`);
      }
    },
    done() {
      if (open) stream.write('\n');
      open = false;
    },
  };
}

/**
 * "N/s, ETA Ms" for `done` of `total` after `elapsedSeconds`: the rate so far, and the time left at
 * that rate ('?' before there is a rate).
 */
export function rateAndEta(done: number, total: number, elapsedSeconds: number, unit: string): string {
  const rate = elapsedSeconds > 0 ? done / elapsedSeconds : 0;
  const left = Math.max(total - done, 0);
  const eta = left === 0 ? '0s' : rate > 0 ? `${Math.ceil(left / rate)}s` : '?';
  return `${Math.round(rate)} ${unit}/s, ETA ${eta}`;
}
