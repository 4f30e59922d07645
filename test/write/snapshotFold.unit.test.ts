/**
 * Write-model snapshots (docs/recovery.md "Write-model snapshots"): for any position of a log,
 * a snapshot taken there — through the stored document (JSON, gzip) — plus a fold of the rest
 * equals a fold of the whole log from position 0. The logs are generated days (bench/generate.ts)
 * decided through the pump's own path (DomainMirror), with reference records, plan requests and
 * history sweeps mixed in at generated positions.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateDay } from '../../bench/generate.ts';
import { DomainMirror, verdictOf } from '../../bench/harness/domainMirror.ts';
import type { Change } from '../../src/domain/changes.ts';
import { archiveBefore } from '../../src/domain/archive.ts';
import { WriteModel } from '../../src/write/pump/writeModel.ts';
import { foldFingerprint, FOLD_VERSION } from '../../src/write/snapshot/foldFingerprint.ts';
import { decodeHead, decodeImage, encodeImage, headLength, SnapshotCancelled, SnapshotFormatError, type DayReader } from '../../src/write/snapshot/snapshotCodec.ts';
import { DayNotFetched } from '../../src/write/snapshot/dayNotFetched.ts';
import type { Queryable } from '../../src/platform/db.ts';
import type { Outcome } from '../../src/write/pump/outcome.ts';

interface LoggedDecision {
  readonly msgId: string | null;
  readonly recordedAt: Date;
  readonly changes: readonly Change[];
}

/** The messages of two generated days (flights of the second day created later), in order. */
function twoDays(seed: number): string[] {
  return (['2025-03-13', '2025-03-14'] as const).flatMap((day, i) =>
    generateDay({ seed: seed * 10 + i, day, flights: 12, flopsPerFlight: 4, firstFlid: 500_000 + i * 100, firstSeqn: 1_000_000 + i * 10_000, fullLists: true }).messages);
}

/** Two generated days (flights of the second day created later), decided in order. */
async function decidedDays(seed: number): Promise<LoggedDecision[]> {
  const mirror = new DomainMirror();
  const out: LoggedDecision[] = [];
  let msg = 0;
  {
    const messages = twoDays(seed);
    for (const raw of messages) {
      const msgId = String(++msg);
      const outcome = await mirror.evaluate(raw, msgId);
      mirror.commit(msgId, outcome);
      out.push({ msgId, recordedAt: new Date(Date.UTC(2025, 2, 13) + msg * 1000), changes: outcome.kind === 'Applied' ? outcome.changes : [] });
    }
  }
  return out;
}

const extra = fc.oneof(
  fc.record({ type: fc.constant('ReferenceUpserted' as const), kind: fc.constantFrom('ARPT', 'ALCD'), code: fc.constantFrom('PEK', 'SHA', 'CA'), fields: fc.dictionary(fc.constantFrom('NAME', 'CITY'), fc.string({ maxLength: 4 })) }),
  fc.record({ type: fc.constant('ReferenceDeleted' as const), kind: fc.constantFrom('ARPT', 'ALCD'), code: fc.constantFrom('PEK', 'SHA', 'CA'), reason: fc.constant('del' as const) }),
  fc.record({ type: fc.constant('PlanRequested' as const), mgid: fc.constantFrom('M1', 'M2'), windowStart: fc.constant('2025-03-14T00:00:00.000Z'), windowEnd: fc.constant('2025-03-15T00:00:00.000Z') }),
  fc.record({ type: fc.constant('FlightsArchived' as const), flids: fc.subarray(['500000', '500001', '500005', '500100'], { minLength: 1 }), beforeDay: fc.constant('2025-03-14') }),
);

function foldAll(model: WriteModel, log: readonly LoggedDecision[], from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const d = log[i]!;
    expect(model.apply(String(i + 1), d.msgId, d.recordedAt, d.changes)).toBe(true);
  }
}

const plain = (m: WriteModel) => ({
  position: m.position,
  latestDay: m.latestDay,
  // JSON leaves out the unset (undefined) keys of `sources`, which read as unset all the same (stale.ts).
  flights: JSON.parse(JSON.stringify([...m.flights.entries()].sort(([a], [b]) => (a < b ? -1 : 1)))),
  reference: [...m.reference].map(([k, v]) => [k, [...v]]),
  planRequests: [...m.planRequests],
});

describe('write-model snapshot + fold of the rest = fold from 0', () => {
  it('for any position, with reference records, plan requests and sweeps mixed in', { timeout: 120_000 }, async () => {
    const days = await Promise.all([1, 2, 3].map(decidedDays));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(0, 1, 2),
        fc.array(fc.tuple(fc.nat(), extra), { maxLength: 8 }),
        fc.nat(),
        async (which, extras, cut) => {
          const log: LoggedDecision[] = [...days[which]!];
          for (const [at, change] of extras) log.splice(at % (log.length + 1), 0, { msgId: null, recordedAt: new Date(0), changes: [change as Change] });
          const at = cut % (log.length + 1);
          const whole = new WriteModel();
          foldAll(whole, log, 0, log.length);
          const before = new WriteModel();
          foldAll(before, log, 0, at);
          const image = before.capture();
          // The model carries on after the capture: the image must not move with it.
          foldAll(before, log, at, log.length);
          const resumed = new WriteModel();
          expect(resumed.restore(await decodeImage(await encodeImage(image)))).toBe(true);
          // A snapshot of a model whose days are still undecoded writes those chunks again as they are.
          const again = new WriteModel();
          expect(again.restore(await decodeImage(await encodeImage(resumed.capture())))).toBe(true);
          foldAll(resumed, log, at, log.length);
          foldAll(again, log, at, log.length);
          expect(plain(resumed)).toEqual(plain(whole));
          expect(plain(again)).toEqual(plain(whole));
          expect(plain(before)).toEqual(plain(whole));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a start whose days arrive one at a time: a decision that reads a day not here waits for it (never decided without it); decisions and folds equal those of a fold from 0', { timeout: 120_000 }, async () => {
    const days = [1, 2, 3].map(twoDays);
    let waits = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(0, 1, 2),
        fc.nat(),
        // How many turns of the event loop each day's bytes take to arrive (in the order they are read).
        fc.array(fc.nat({ max: 6 }), { minLength: 1, maxLength: 8 }),
        // Per message after the cut: decided by this model (false), or by another writer and folded (true).
        fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }),
        async (which, cut, delays, folded) => {
          const messages = days[which]!;
          const at = cut % messages.length;
          const mirror = new DomainMirror();
          const log: { position: string; msgId: string; recordedAt: Date; changes: readonly Change[] }[] = [];
          const decide = async (k: number, outcome?: Outcome) => {
            const msgId = String(k + 1);
            const d = mirror.commit(msgId, outcome ?? (await mirror.evaluate(messages[k]!, msgId)));
            log.push({ position: d.position, msgId, recordedAt: d.recordedAt, changes: outcome?.kind === 'Applied' ? outcome.changes : (d.decision.payload as { changes?: Change[] }).changes ?? [] });
          };
          for (let k = 0; k < at; k++) await decide(k);
          const before = new WriteModel();
          for (const e of log) expect(before.apply(e.position, e.msgId, e.recordedAt, e.changes)).toBe(true);
          const body = await encodeImage(before.capture());
          const headEnd = headLength(body);
          let reads = 0;
          const reader: DayReader = {
            async read(offset, length) {
              for (let t = delays[reads++ % delays.length]!; t > 0; t--) await new Promise((r) => setImmediate(r));
              return body.subarray(headEnd + offset, headEnd + offset + length);
            },
            close: () => undefined,
          };
          const resumed = new WriteModel();
          expect(resumed.restore(await decodeHead(body.subarray(0, headEnd), reader))).toBe(true);
          // The log as readChangesAfter reads it, for the model's fold.
          const q = {
            query: async (_sql: string, [after, limit]: [string, number]) => ({
              rows: log.filter((e) => BigInt(e.position) > BigInt(after)).slice(0, limit).map((e) => ({ position: e.position, msg_id: e.msgId, recorded_at: e.recordedAt, changes: e.changes })),
            }),
          } as unknown as Queryable;
          const AGAIN = Symbol('again');
          for (let k = at; k < messages.length; k++) {
            const msgId = String(k + 1);
            const expected = await verdictOf(mirror.flights, messages[k]!, msgId);
            if (!folded[k % folded.length]) {
              let got: Outcome | typeof AGAIN = AGAIN;
              for (let tries = 0; got === AGAIN; tries++) {
                expect(tries).toBeLessThan(20);
                got = await resumed.deciding(() => verdictOf(resumed.flights, messages[k]!, msgId), AGAIN);
                if (got === AGAIN) waits++;
              }
              expect(got).toEqual(expected);
            }
            await decide(k, expected);
            await resumed.catchUp(q);
            expect(resumed.position).toBe(mirror.position);
          }
          expect(await resumed.ready(q)).toBeUndefined();
          expect(await resumed.readable()).toBe(true);
          const whole = new WriteModel();
          for (const e of log) whole.apply(e.position, e.msgId, e.recordedAt, e.changes);
          expect(plain(resumed)).toEqual(plain(whole));
        },
      ),
      { numRuns: 40 },
    );
    // The property went through the wait: some decisions read a day before it was here.
    expect(waits).toBeGreaterThan(0);
  });

  it('a start reads only the days its decisions ask for until `background` (the pump\'s first step) resolves, then the rest', async () => {
    const log = await decidedDays(7);
    const m = new WriteModel();
    foldAll(m, log, 0, log.length);
    const body = await encodeImage(m.capture());
    const headEnd = headLength(body);
    const read: number[] = [];
    const reader: DayReader = {
      async read(offset, length) {
        read.push(offset);
        return body.subarray(headEnd + offset, headEnd + offset + length);
      },
      close: () => undefined,
    };
    const resumed = new WriteModel();
    const image = await decodeHead(body.subarray(0, headEnd), reader, resumed.firstStep);
    expect(resumed.restore(image)).toBe(true);
    const settle = async (): Promise<void> => {
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    };
    await settle();
    expect(read).toEqual([]);
    // A decision reads a flight of the older day: that day alone is read, ahead of the others.
    const older = [...m.flights.values()].map((f) => f.operationDay).sort()[0]!;
    const flid = [...m.flights.values()].find((f) => f.operationDay === older)!.flid;
    expect(await resumed.deciding(async () => resumed.flights.get(flid)?.flid, 'again' as const)).toBe('again');
    expect(read).toHaveLength(1);
    await settle();
    expect(read).toHaveLength(1);
    // The pump's first step ends (the second try succeeds): every other day follows.
    expect(await resumed.deciding(async () => resumed.flights.get(flid)?.flid, 'again' as const)).toBe(flid);
    await image.fetched;
    expect(read.length).toBeGreaterThan(1);
    expect(plain(resumed)).toEqual(plain(m));
  });

  it('decodeDays decodes every snapshot day ahead (a warm standby), one day per turn, and stops when aborted', async () => {
    const log = await decidedDays(8);
    const m = new WriteModel();
    foldAll(m, log, 0, log.length);
    const body = await encodeImage(m.capture());
    const resumed = new WriteModel();
    expect(resumed.restore(await decodeImage(body))).toBe(true);
    const pending = resumed.flights.pendingCount;
    expect(pending).toBeGreaterThan(0);
    const stopped = new AbortController();
    stopped.abort();
    expect(await resumed.decodeDays(stopped.signal)).toBe(0);
    expect(resumed.flights.pendingCount).toBe(pending);
    const days = await resumed.decodeDays(new AbortController().signal);
    expect(days).toBeGreaterThan(1);
    expect(resumed.flights.pendingCount).toBe(0);
    expect(plain(resumed)).toEqual(plain(m));
  });

  it('a day that cannot be read: the decision waiting for it is not made, and the next ready starts the model over', async () => {
    const log = await decidedDays(6);
    const m = new WriteModel();
    foldAll(m, log, 0, log.length);
    const body = await encodeImage(m.capture());
    const headEnd = headLength(body);
    const reader: DayReader = { read: async () => Promise.reject(new Error('row gone')), close: () => undefined };
    const resumed = new WriteModel({ newestImage: async () => undefined });
    resumed.restore(await decodeHead(body.subarray(0, headEnd), reader));
    const flid = [...m.flights.keys()][0]!;
    expect(() => resumed.flights.get(flid)).toThrow(DayNotFetched);
    expect(await resumed.deciding(async () => resumed.flights.get(flid), 'again' as const)).toBe('again');
    const q = { query: async (_sql: string, [after, limit]: [string, number]) => ({
      rows: log.map((d, i) => ({ position: String(i + 1), msg_id: d.msgId, recorded_at: d.recordedAt, changes: d.changes })).filter((r) => BigInt(r.position) > BigInt(after)).slice(0, limit),
    }) } as unknown as Queryable;
    expect((await resumed.ready(q))?.message).toBe('row gone');
    expect(plain(resumed)).toEqual(plain(m));
  });

  it('a model that folded anything takes no snapshot; a bad document is a SnapshotFormatError; a stop cancels the encoding', async () => {
    const log = await decidedDays(4);
    const m = new WriteModel();
    foldAll(m, log, 0, 1);
    expect(m.restore(m.capture())).toBe(false);
    await expect(decodeImage(Buffer.from('not gzip'))).rejects.toBeInstanceOf(SnapshotFormatError);
    const big = new WriteModel();
    foldAll(big, log, 0, log.length);
    await expect(encodeImage(big.capture(), () => true)).rejects.toBeInstanceOf(SnapshotCancelled);
  });

  it('a start decodes no day until it is used; a sweep and a second snapshot decode none', async () => {
    const log = await decidedDays(5);
    const m = new WriteModel();
    foldAll(m, log, 0, log.length);
    const body = await encodeImage(m.capture());
    const image = await decodeImage(body);
    const resumed = new WriteModel();
    resumed.restore(image);
    const flights = resumed.flights;
    expect(flights.size).toBe(m.flights.size);
    expect(flights.pendingCount).toBe(m.flights.size);
    // The history sweep asks every flight's day: answered from the chunk list.
    expect(archiveBefore(flights, '2025-03-14')?.flids).toEqual(archiveBefore(m.flights, '2025-03-14')?.flids);
    expect(flights.pendingCount).toBe(m.flights.size);
    // Untouched days are written again byte for byte.
    expect((await encodeImage(resumed.capture())).equals(body)).toBe(true);
    // Reading one flight decodes its day only.
    const first = [...m.flights.values()].find((f) => f.operationDay === '2025-03-13')!;
    expect(flights.get(first.flid)).toEqual(JSON.parse(JSON.stringify(first)));
    const sameDay = [...m.flights.values()].filter((f) => f.operationDay === '2025-03-13').length;
    expect(flights.pendingCount).toBe(m.flights.size - sameDay);
  });

  it('the fold fingerprint names FOLD_VERSION and is stable within a process', () => {
    expect(foldFingerprint()).toMatch(new RegExp(`^${FOLD_VERSION}:[0-9a-f]{20}$`));
    expect(foldFingerprint()).toBe(foldFingerprint());
  });
});
