/**
 * One error vocabulary (docs/architecture.md "Errors"): every refusal an operator can act on is a
 * MsgxError with an exit code and an HTTP status, and a plain `extends Error` is left only to the
 * internal control-flow and failure classes listed here.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/platform/config.ts';
import { CancelledError, MsgxError, RefusedError, TooLargeError, UsageError } from '../../src/platform/errors.ts';
import { ShadowWriteRefused } from '../../src/platform/mailbox/shadowMailbox.ts';
import { MigrationChangedError } from '../../src/platform/migrate.ts';
import { RebuildRefusedError } from '../../src/projections/rebuild/scratchTables.ts';
import { ProducerSafetyError } from '../../src/write/delivery/producerConfig.ts';
import { ShadowRefused } from '../../src/write/shadow/runModeChange.ts';
import { SnapshotCancelled } from '../../src/write/snapshot/snapshotCodec.ts';
import { WriterLockHeldError } from '../../src/write/writerLock.ts';

/** Errors that never reach an operator as a refusal: they are caught inside their module or are failures. */
const PLAIN_ERRORS = new Set([
  'MsgxError', 'PortTakenError', 'FencedError', 'MissingCheckpointError', 'Conflict', 'SnapshotFormatError', 'DeliveryFailure',
  'NotLean', 'DayNotFetched', 'XmlLimitError', 'BodyError', 'XmlSyntaxError', 'DecisionLogError', 'UnshardableError',
]);

async function* tsFiles(dir: string): AsyncGenerator<string> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* tsFiles(p);
    else if (e.name.endsWith('.ts')) yield p;
  }
}

describe('the error vocabulary', () => {
  it('maps each refusal to exit 1 / HTTP 409, each bad input to exit 2 / HTTP 400 or 413', () => {
    const refusals = [
      new WriterLockHeldError('pid 1 on host'), new MigrationChangedError('001_x.sql'), new RebuildRefusedError(['a view']),
      new ShadowWriteRefused('insert into COUTMSGS'), new ProducerSafetyError('acks', 0), new ShadowRefused('no'), new RefusedError('no'),
    ];
    for (const e of refusals) expect([e.name, e instanceof MsgxError, e.exitCode, e.httpStatus]).toEqual([e.constructor.name, true, 1, 409]);
    for (const e of [new UsageError('bad'), new ConfigError([{ variable: 'MSGX_X', message: 'bad' }])]) {
      expect([e.exitCode, e.httpStatus]).toEqual([2, 400]);
    }
    expect([new TooLargeError('big').exitCode, new TooLargeError('big').httpStatus]).toEqual([2, 413]);
    expect(new SnapshotCancelled()).toBeInstanceOf(CancelledError);
  });

  it('leaves `extends Error` only to the listed internal classes', async () => {
    const plain: string[] = [];
    for await (const file of tsFiles('src')) {
      for (const m of (await readFile(file, 'utf8')).matchAll(/class (\w+) extends Error\b/g)) plain.push(m[1]!);
    }
    expect(plain.filter((name) => !PLAIN_ERRORS.has(name))).toEqual([]);
  });
});
