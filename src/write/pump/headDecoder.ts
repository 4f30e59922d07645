/**
 * Where the pump decodes a head's raw input (docs/architecture.md "Decode budget"): small messages
 * on the writer's thread (their decode is linear and short, and a worker round trip would cost more
 * than it), larger ones in a long-lived decode worker thread, so that a slow message never holds
 * back the HTTP server or the writer lock's keepalive. A decode in the worker that has used the
 * budget — in the worker thread's CPU time where /proc tells it (src/platform/threadCpu.ts), else in
 * wall time; at most WALL_CAP_FACTOR budgets of wall time in any case — is cut short: the worker is
 * terminated and a fresh one started, and the message gets a CODEC_ERROR naming the budget
 * (PARKED: the FIFO moves on).
 */
import { performance } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { moduleBeside, startTsWorker } from '../../platform/tsWorker.ts';
import { pushAll } from '../../platform/arrays.ts';
import { threadCpuMs } from '../../platform/threadCpu.ts';
import { decodeHead, partedRecords, type DecodedHead } from './decodeHead.ts';

/**
 * Messages shorter than this (characters) are decoded inline. Measured (docs/benchmarks.md, pump
 * figure): the worker round trip (two structured clones, two thread hand-overs) costs more than a
 * small message's decode, which the linear reader bounds at well under a millisecond at this size.
 */
export const INLINE_DECODE_CHARS = 64 * 1024;

/** A decode and the time it took (on whichever thread ran it): the worker's CPU time when known, else wall time. */
export interface TimedDecode {
  readonly decoded: DecodedHead;
  readonly ms: number;
}

/** The pump's port for decoding heads; a test injects another (a slow one, a counting one). */
export interface HeadDecoder {
  /** The head decoded, or — over the budget, or when the worker failed — a CODEC_ERROR saying so. */
  decode(rawXml: string, nulReplaced: boolean): Promise<TimedDecode>;
  /** Ends the worker (the pump's stop). */
  close(): Promise<void>;
}

/** What a decoder did so far (tests, the bench). */
export interface DecoderStats {
  /** Worker threads started (one, plus one after each decode cut short or worker failure). */
  workers: number;
  /** Heads decoded in the worker, and inline. */
  inWorker: number;
  inline: number;
  /** Decodes cut short at the budget. */
  overBudget: number;
  /** Parts of records handed over from the worker (RECORDS_PER_PART each, decodeHead.ts). */
  parts: number;
}

export type DecodeConfig = Pick<Config, 'airportTz' | 'identityIncludeDay' | 'airportIata'>;

export interface DecodeWorkerData {
  readonly cfg: DecodeConfig;
}
export type ToDecodeWorker =
  | { readonly type: 'decode'; readonly id: number; readonly rawXml: string; readonly nulReplaced: boolean }
  /** The writer thread has read a part of decode `id`: one more may come. */
  | { readonly type: 'next'; readonly id: number };
export type FromDecodeWorker =
  /** `tid`: the worker thread's id in /proc (its CPU time is what the budget counts), when there is one. */
  | { readonly type: 'ready'; readonly tid: number | undefined }
  /** `parts` > 0: the message's `records` follow in that many `records` messages, one per `next`. */
  | { readonly type: 'decoded'; readonly id: number; readonly decoded: DecodedHead; readonly parts: number }
  /** A part of the records as JSON text (DecodedHead is plain data, so JSON is lossless, as for redecide's pages). */
  | { readonly type: 'records'; readonly id: number; readonly json: string }
  | { readonly type: 'failed'; readonly id: number; readonly error: string };

export interface HeadDecoderOptions {
  readonly cfg: DecodeConfig & Pick<Config, 'decodeBudgetMs'>;
  readonly log: Logger;
  /** Messages shorter than this are decoded inline (default INLINE_DECODE_CHARS; 0: all in the worker). */
  readonly inlineBelowChars?: number;
  /** CPU milliseconds a thread has used (default threadCpuMs, /proc; a test injects a machine that never runs it). */
  readonly threadCpuMs?: (tid: number) => number | undefined;
  /** Wall time after which a decode is cut short whatever CPU it used (default WALL_CAP_FACTOR × the budget). */
  readonly wallCapMs?: number;
}

/**
 * The budget counts the worker's CPU time; wall time is capped at this many budgets, so a decode
 * that never gets a core (or a platform without /proc) still ends (docs/architecture.md "Decode budget").
 */
export const WALL_CAP_FACTOR = 6;

/** How often, at most, the CPU time of a decode that is over its wall budget is read again. */
const RECHECK_MS = 50;

/** The reason of a message whose decode was cut short. */
export function overBudgetReason(budgetMs: number): string {
  return `decode took longer than ${budgetMs} ms (MSGX_DECODE_BUDGET_MS), cut short; the message is parked — raise the budget and msgx replay --class CODEC_ERROR if it is legitimate`;
}

const codecError = (error: string): DecodedHead => ({ ok: false, errorClass: 'CODEC_ERROR', error, meta: null });

/** A decode the writer thread waits for; `parts`: the records still to come, and where they go. */
interface Pending {
  readonly id: number;
  settle(d: DecodedHead): void;
  parts?: { left: number; readonly decoded: DecodedHead; readonly records: unknown[] };
}

/** One worker thread and the decode it runs (one at a time). */
interface Thread {
  readonly worker: Worker;
  /** Settles when the worker has loaded the codec (rejects when it could not start). */
  readonly ready: Promise<void>;
  pending: Pending | null;
  /** Its id in /proc (from its `ready`), undefined until then or without /proc. */
  tid: number | undefined;
}

export function createHeadDecoder(opts: HeadDecoderOptions): HeadDecoder & { readonly stats: Readonly<DecoderStats> } {
  const { cfg, log } = opts;
  const inlineBelow = opts.inlineBelowChars ?? INLINE_DECODE_CHARS;
  const data: DecodeWorkerData = { cfg: { airportTz: cfg.airportTz, identityIncludeDay: cfg.identityIncludeDay, airportIata: cfg.airportIata } };
  let thread: Thread | undefined;
  let ids = 0;
  let closed = false;
  /** Decodes run one after the other (the worker decodes one message at a time). */
  let queue: Promise<unknown> = Promise.resolve();
  /** The worker could not start: decode inline from then on (said once). */
  let noWorker = false;
  const stats: DecoderStats = { workers: 0, inWorker: 0, inline: 0, overBudget: 0, parts: 0 };

  function inline(rawXml: string, nulReplaced: boolean): TimedDecode {
    stats.inline += 1;
    const t0 = performance.now();
    let decoded: DecodedHead;
    try {
      decoded = decodeHead(rawXml, nulReplaced, cfg);
    } catch (err) {
      decoded = codecError(`decode failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    return { decoded, ms: performance.now() - t0 };
  }

  function start(): Thread {
    const worker = startTsWorker(moduleBeside('decodeWorker', import.meta.url), data);
    worker.unref(); // never what keeps the process alive
    stats.workers += 1;
    let readyResolve!: () => void;
    let readyReject!: (err: Error) => void;
    const t: Thread = {
      worker,
      ready: new Promise<void>((resolve, reject) => {
        readyResolve = resolve;
        readyReject = reject;
      }),
      pending: null,
      tid: undefined,
    };
    t.ready.catch(() => undefined);
    const fail = (error: string) => {
      readyReject(new Error(error));
      const p = t.pending;
      t.pending = null;
      if (thread === t) thread = undefined;
      p?.settle(codecError(`decode worker failed: ${error}`));
    };
    worker.on('message', (m: FromDecodeWorker) => {
      if (m.type === 'ready') {
        t.tid = m.tid;
        return readyResolve();
      }
      const p = t.pending;
      if (p === null || p.id !== m.id) return;
      if (m.type === 'decoded' && m.parts > 0) {
        // The first PARTS_AHEAD parts follow unasked; each part read asks for one more (decodeHead.ts).
        p.parts = { left: m.parts, decoded: m.decoded, records: recordsOf(m.decoded) };
        return;
      }
      if (m.type === 'records' && p.parts) {
        pushAll(p.parts.records, JSON.parse(m.json) as unknown[]);
        p.parts.left -= 1;
        stats.parts += 1;
        if (p.parts.left > 0) return worker.postMessage({ type: 'next', id: m.id } satisfies ToDecodeWorker);
        t.pending = null;
        return p.settle(p.parts.decoded);
      }
      t.pending = null;
      p.settle(m.type === 'decoded' ? m.decoded : m.type === 'failed' ? codecError(`decode failed: ${m.error}`) : codecError('decode worker: records without their message'));
    });
    worker.on('error', (err) => fail(err.message));
    worker.on('exit', (code) => fail(`decode worker exited with code ${code}`));
    return t;
  }

  async function inWorker(rawXml: string, nulReplaced: boolean): Promise<TimedDecode> {
    if (noWorker || closed) return inline(rawXml, nulReplaced);
    const t = (thread ??= start());
    try {
      await t.ready; // the budget counts the decode, not the worker's start-up
    } catch (err) {
      noWorker = true;
      log.error({ err }, 'the decode worker cannot start; decoding on the writer thread from now on');
      return inline(rawXml, nulReplaced);
    }
    const id = ++ids;
    stats.inWorker += 1;
    const t0 = performance.now();
    const cpu = cpuSince(t.tid);
    const budgetMs = cfg.decodeBudgetMs;
    const wallCapMs = opts.wallCapMs ?? WALL_CAP_FACTOR * budgetMs;
    let timer: NodeJS.Timeout | undefined;
    const decoded = await new Promise<DecodedHead>((resolve) => {
      t.pending = { id, settle: resolve };
      const check = () => {
        if (t.pending?.id !== id) return;
        // Over the budget in wall time: cut short only once the worker has used the budget in CPU
        // time too (a loaded machine stretches wall time), or at the wall cap.
        const used = cpu();
        const wall = performance.now() - t0;
        if (used !== undefined && used < budgetMs && wall < wallCapMs) {
          timer = setTimeout(check, Math.max(RECHECK_MS, Math.min(budgetMs - used, wallCapMs - wall)));
          return;
        }
        t.pending = null;
        stats.overBudget += 1;
        // Cut it short: the decode cannot be interrupted inside the thread, the thread can.
        if (thread === t) thread = undefined;
        void t.worker.terminate().catch(() => undefined);
        log.warn({ budgetMs: cfg.decodeBudgetMs, chars: rawXml.length }, 'decode over budget: decode worker terminated, a fresh one starts');
        if (!closed) thread = start();
        resolve(codecError(overBudgetReason(cfg.decodeBudgetMs)));
      };
      timer = setTimeout(check, budgetMs);
      t.worker.postMessage({ type: 'decode', id, rawXml, nulReplaced } satisfies ToDecodeWorker);
    });
    clearTimeout(timer);
    return { decoded, ms: cpu() ?? performance.now() - t0 };
  }

  /** The CPU milliseconds thread `tid` used since this call (undefined: unknown, the budget is wall time). */
  function cpuSince(tid: number | undefined): () => number | undefined {
    const read = opts.threadCpuMs ?? threadCpuMs;
    const start = tid === undefined ? undefined : read(tid);
    return () => {
      if (tid === undefined || start === undefined) return undefined;
      const now = read(tid);
      return now === undefined ? undefined : now - start;
    };
  }

  return {
    stats,
    decode(rawXml, nulReplaced) {
      if (rawXml.length < inlineBelow) return Promise.resolve(inline(rawXml, nulReplaced));
      const next = queue.then(() => inWorker(rawXml, nulReplaced));
      queue = next.catch(() => undefined);
      return next;
    },
    async close() {
      closed = true;
      const t = thread;
      thread = undefined;
      if (t) await t.worker.terminate().catch(() => undefined);
    },
  };
}

/** The records list the parts are appended to (the worker sent the message with it empty). */
function recordsOf(decoded: DecodedHead): unknown[] {
  return partedRecords(decoded) ?? [];
}
