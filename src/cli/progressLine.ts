/**
 * Progress of a long command on stderr: on a terminal one line rewritten in place, otherwise
 * (a log file, a pipe, CI) one plain line per report.
 */
export interface ProgressLine {
  update(text: string): void;
  /** End the in-place line (a no-op when not on a terminal). */
  done(): void;
}

export function createProgressLine(stream: NodeJS.WriteStream = process.stderr): ProgressLine {
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
