/**
 * A small bounded load generator: keep-alive node:http, a fixed number of workers each sending its
 * next request as soon as the previous answer is read (closed loop), for a fixed time.
 */
import http from 'node:http';
import { nowMs, summarize } from './stats.ts';

export interface HttpTarget {
  readonly port: number;
  readonly agent: http.Agent;
}

export function target(port: number, sockets: number): HttpTarget {
  return { port, agent: new http.Agent({ keepAlive: true, maxSockets: sockets }) };
}

export interface Answer {
  readonly status: number;
  readonly body: string;
  /** nowMs() when the last byte arrived: before the client joins and decodes the body. */
  readonly lastByteAt: number;
}

/**
 * One request; resolves with the whole body. A request that fails on a reused keep-alive socket
 * (the server closed it while idle: "socket hang up" / ECONNRESET) is sent once more on a fresh
 * one, as Node's documentation advises for idempotent requests (all of ours are reads).
 */
export async function request(t: HttpTarget, method: 'GET' | 'POST', path: string, body?: string): Promise<Answer> {
  try {
    return await requestOnce(t, method, path, body);
  } catch (err) {
    if (!(err instanceof StaleSocketError)) throw err;
    return requestOnce(t, method, path, body);
  }
}

class StaleSocketError extends Error {}

function requestOnce(t: HttpTarget, method: 'GET' | 'POST', path: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: t.port,
        method,
        path,
        agent: t.agent,
        headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const lastByteAt = nowMs();
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), lastByteAt });
        });
        res.on('error', reject);
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      const stale = req.reusedSocket && (err.code === 'ECONNRESET' || err.message === 'socket hang up');
      reject(stale ? new StaleSocketError(err.message, { cause: err }) : err);
    });
    req.end(body);
  });
}

/** A well-formed answer: 200 and no GraphQL `errors`. */
export function expectOk(a: Answer, what: string): void {
  if (a.status !== 200 || a.body.startsWith('{"errors"') || a.body.includes('"errors":[')) {
    throw new Error(`${what}: HTTP ${a.status} ${a.body.slice(0, 300)}`);
  }
}

export interface LoadResult {
  readonly requests: number;
  readonly seconds: number;
  readonly rate: number;
  readonly latencyMs: ReturnType<typeof summarize>;
}

/** `concurrency` closed-loop workers calling `send(i)` for `durationMs` (after `warmupMs` not counted). */
export async function closedLoop(opts: {
  concurrency: number;
  durationMs: number;
  warmupMs: number;
  send: (i: number) => Promise<void>;
}): Promise<LoadResult> {
  let i = 0;
  const warmEnd = nowMs() + opts.warmupMs;
  const end = warmEnd + opts.durationMs;
  const latencies: number[] = [];
  let counted = 0;
  const worker = async () => {
    for (;;) {
      const t0 = nowMs();
      if (t0 >= end) return;
      await opts.send(i++);
      const t1 = nowMs();
      if (t0 >= warmEnd && t1 <= end) {
        counted++;
        latencies.push(t1 - t0);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const seconds = opts.durationMs / 1000;
  return { requests: counted, seconds, rate: counted / seconds, latencyMs: summarize(latencies) };
}
