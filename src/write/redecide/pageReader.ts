/**
 * Where a re-decision gets its pages of decisions (decodedPage.ts), and how far ahead:
 *   - inline: read and decode in this thread, the next page asked for while this one is decided
 *     (small ranges, and the catch-up under the pipeline lock before corrections are appended);
 *   - WorkerPageReader: a worker thread reads and decodes up to AHEAD pages ahead on the other core
 *     while this thread decides, and hands each page over as one JSON string. Until the worker has
 *     started (loaded its modules, connected), pages are read inline, so its start-up costs nothing.
 */
import type { Worker } from 'node:worker_threads';
import type { Queryable } from '../../platform/db.ts';
import { moduleBeside, startTsWorker } from '../../platform/tsWorker.ts';
import { parsePage, readDecodedPage, type DecodeConfig, type ReadDecision } from './decodedPage.ts';

export interface PageReader {
  /** Pages of the decisions with `after < position <= upTo`, ascending, `limit` a page; never an empty one. */
  pages(after: string, upTo: string, limit: number): AsyncIterable<ReadDecision[]>;
}

export function inlinePageReader(q: Queryable, cfg: DecodeConfig): PageReader {
  return {
    async *pages(after, upTo, limit) {
      let next = readDecodedPage(q, after, upTo, limit, cfg);
      for (;;) {
        const page = await next;
        const more = page.rows === limit && page.last !== null;
        if (more) next = readDecodedPage(q, page.last!, upTo, limit, cfg);
        try {
          if (page.rows > 0) yield parsePage(page.text);
        } finally {
          // Stopped early (an abort): let the read in flight settle before its connection is reused.
          if (more) await next.catch(() => undefined);
        }
        if (!more) return;
      }
    },
  };
}

export interface PageWorkerData {
  readonly databaseUrl: string;
  readonly applicationName: string;
  readonly cfg: DecodeConfig;
}
export type ToWorker =
  | { readonly type: 'run'; readonly id: number; readonly after: string; readonly upTo: string; readonly limit: number; readonly ahead: number }
  | { readonly type: 'ack'; readonly id: number };
export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'page'; readonly id: number; readonly text: string; readonly rows: number }
  | { readonly type: 'done'; readonly id: number }
  /** id 0: the worker could not start (connect). */
  | { readonly type: 'error'; readonly id: number; readonly error: string };

/** Pages the worker may read and decode ahead of the one being decided. */
const AHEAD = 3;

export class WorkerPageReader implements PageReader {
  private runs = 0;
  /** Pages handed over by the worker, and read in this thread before it was ready. */
  workerPages = 0;
  inlinePages = 0;
  private ready = false;
  private failure: Error | null = null;
  /** Settles when the worker has started (pages are read inline until then), or could not. */
  readonly started: Promise<void>;

  private constructor(
    private readonly worker: Worker,
    private readonly q: Queryable,
    private readonly cfg: DecodeConfig,
    /** The worker's module (`pageWorker.js` when msgx runs its build, `.ts` from the sources). */
    readonly module: URL,
  ) {
    this.started = new Promise<void>((resolve, reject) => {
      worker.on('message', (m: FromWorker) => {
        if (m.type === 'ready') {
          this.ready = true;
          resolve();
        } else if (m.type === 'error' && m.id === 0) {
          reject((this.failure = new Error(`redecide page reader: ${m.error}`)));
        }
      });
      worker.on('error', (err) => reject((this.failure = err)));
    });
    this.started.catch(() => undefined); // surfaced by pages()
  }

  /** `q` serves the pages read before the worker is ready; the worker connects with `databaseUrl`. */
  static open(q: Queryable, databaseUrl: string, cfg: DecodeConfig, applicationName = 'msgx-redecide'): WorkerPageReader {
    const data: PageWorkerData = { databaseUrl, applicationName, cfg: { airportTz: cfg.airportTz, identityIncludeDay: cfg.identityIncludeDay, airportIata: cfg.airportIata } };
    const module = moduleBeside('pageWorker', import.meta.url);
    return new WorkerPageReader(startTsWorker(module, data), q, cfg, module);
  }

  async *pages(after: string, upTo: string, limit: number): AsyncIterable<ReadDecision[]> {
    let pos = after;
    // One page at a time inline (no read ahead: the worker takes over at the next page boundary).
    while (!this.ready && this.failure === null) {
      const page = await readDecodedPage(this.q, pos, upTo, limit, this.cfg);
      if (page.rows > 0) {
        this.inlinePages++;
        yield parsePage(page.text);
      }
      if (page.rows < limit || page.last === null) return;
      pos = page.last;
    }
    yield* this.fromWorker(pos, upTo, limit);
  }

  private async *fromWorker(after: string, upTo: string, limit: number): AsyncIterable<ReadDecision[]> {
    const id = ++this.runs;
    const queue: FromWorker[] = [];
    let wake: (() => void) | null = null;
    const onMessage = (m: FromWorker) => {
      if (m.type === 'ready' || m.id !== id) return;
      queue.push(m);
      wake?.();
    };
    const onError = () => wake?.();
    this.worker.on('message', onMessage);
    this.worker.on('error', onError);
    try {
      this.worker.postMessage({ type: 'run', id, after, upTo, limit, ahead: AHEAD } satisfies ToWorker);
      for (;;) {
        while (queue.length === 0 && this.failure === null) await new Promise<void>((r) => (wake = r));
        wake = null;
        if (this.failure !== null) throw this.failure;
        const m = queue.shift()!;
        if (m.type === 'error') throw new Error(`redecide page reader: ${m.error}`);
        if (m.type !== 'page') return;
        this.worker.postMessage({ type: 'ack', id } satisfies ToWorker);
        if (m.rows > 0) {
          this.workerPages++;
          yield parsePage(m.text);
        }
      }
    } finally {
      this.worker.off('message', onMessage);
      this.worker.off('error', onError);
    }
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
