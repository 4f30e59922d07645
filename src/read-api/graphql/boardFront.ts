/**
 * The board cache's HTTP front (docs/read-api.md "Board cache"): a board POST whose answer is
 * cached is answered with the stored bytes of that answer — no GraphQL pipeline, no
 * re-serialising — after one small round trip that reads the projection positions (the same
 * freshness rule as responseCache.ts). Each answer carries an ETag (a digest of its key, which
 * holds the positions), `If-None-Match` answers 304, and the gzip form is made once per answer
 * when a client accepts it.
 *
 * Only POSTs with a JSON body of a declared length of at most FRONT_MAX_BODY bytes, asking for no
 * streamed answer, come here;
 * everything else goes to yoga's own listener as before. A request the front takes but cannot
 * answer from its store (not a board, not cached yet, positions unreadable) goes to yoga through
 * `yoga.fetch` with the body already read, and a cacheable answer is stored on the way out.
 */
import { createHash } from 'node:crypto';
import type http from 'node:http';
import { gzipSync } from 'node:zlib';
import { type DocumentNode, parse, print } from 'graphql';
import type { Queryable } from '../../platform/db.ts';
import { cacheable, FRONT_REQUEST, positions } from './responseCache.ts';

/** Largest request body the front reads itself (a board query is 1–2 KB). */
export const FRONT_MAX_BODY = 64 * 1024;
/** Parsed query texts kept (screens send a handful of distinct queries). */
const PARSED_KEPT = 200;
/** Answers smaller than this are sent as they are, never gzipped. */
const GZIP_FROM = 1024;

export interface FrontFetch {
  fetch(url: string, init: RequestInit, serverContext: Record<string, unknown>): Promise<Response> | Response;
}

export interface BoardFrontOptions {
  readonly yoga: FrontFetch;
  readonly db: Queryable;
  /** Output settings that change an answer (zone, personal data): part of every key. */
  readonly settings: string;
  /** Most bytes of answers (plain and gzip) kept. */
  readonly maxBytes: number;
  readonly maxTokens: number;
}

interface Entry {
  readonly body: Buffer;
  readonly contentType: string;
  readonly etag: string;
  gzip?: Buffer;
}

export interface BoardFront {
  /** Answers `req` and returns true, or returns false without touching it (yoga's listener serves it). */
  handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean>;
  stats(): { entries: number; bytes: number; hits: number; notModified: number; misses: number };
}

interface BoardRequest {
  readonly query: string;
  readonly variables: unknown;
  readonly operationName: string | null;
}

/** Streaming answers (SSE subscriptions, incremental delivery) stay with yoga's listener. */
const STREAMING = /text\/event-stream|multipart\/mixed/i;

function takes(req: http.IncomingMessage): boolean {
  if (req.method !== 'POST' || STREAMING.test(headerText(req.headers.accept))) return false;
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const length = Number(req.headers['content-length']);
  return type === 'application/json' && Number.isInteger(length) && length > 0 && length <= FRONT_MAX_BODY;
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FRONT_MAX_BODY) throw new Error('body longer than its content-length');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function boardRequest(body: Buffer): BoardRequest | undefined {
  try {
    const v = JSON.parse(body.toString('utf8')) as { query?: unknown; variables?: unknown; operationName?: unknown };
    if (typeof v?.query !== 'string') return undefined;
    return { query: v.query, variables: v.variables ?? {}, operationName: typeof v.operationName === 'string' ? v.operationName : null };
  } catch {
    return undefined;
  }
}

function headerText(v: string | string[] | undefined): string {
  return Array.isArray(v) ? v.join(', ') : (v ?? '');
}

/** Whether an If-None-Match header names `etag` (a list, weak validators and `*` included). */
export function matchesEtag(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

export function createBoardFront(opts: BoardFrontOptions): BoardFront {
  let at = '';
  const entries = new Map<string, Entry>();
  const parsed = new Map<string, { doc: DocumentNode; printed: string } | null>();
  let bytes = 0;
  let hits = 0;
  let notModified = 0;
  let misses = 0;

  const documentOf = (query: string): { doc: DocumentNode; printed: string } | null => {
    let p = parsed.get(query);
    if (p !== undefined) return p;
    try {
      const doc = parse(query, { maxTokens: opts.maxTokens });
      p = { doc, printed: print(doc) };
    } catch {
      p = null; // yoga reports the syntax error
    }
    if (parsed.size >= PARSED_KEPT) parsed.delete(parsed.keys().next().value!);
    parsed.set(query, p);
    return p;
  };

  const store = (key: string, e: Entry): void => {
    if (e.body.length > opts.maxBytes) return;
    entries.set(key, e);
    bytes += e.body.length;
    trim();
  };
  const trim = (): void => {
    for (const [k, v] of entries) {
      if (bytes <= opts.maxBytes) break;
      entries.delete(k);
      bytes -= v.body.length + (v.gzip?.length ?? 0);
    }
  };

  const send = (req: http.IncomingMessage, res: http.ServerResponse, e: Entry): void => {
    const headers: Record<string, string | number> = { 'content-type': e.contentType, etag: e.etag, vary: 'accept, accept-encoding' };
    if (matchesEtag(headerText(req.headers['if-none-match']), e.etag)) {
      notModified++;
      res.writeHead(304, headers).end();
      return;
    }
    hits++;
    if (e.body.length >= GZIP_FROM && /\bgzip\b/.test(headerText(req.headers['accept-encoding']))) {
      if (e.gzip === undefined) {
        e.gzip = gzipSync(e.body);
        bytes += e.gzip.length;
      }
      res.writeHead(200, { ...headers, 'content-encoding': 'gzip', 'content-length': e.gzip.length }).end(e.gzip);
      trim();
      return;
    }
    res.writeHead(200, { ...headers, 'content-length': e.body.length }).end(e.body);
  };

  /** yoga answers (the body already read); `etag` is sent with it when the answer is one to keep. */
  const forward = async (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, etag?: string): Promise<{ status: number; type: string; bytes: Buffer; kept: boolean }> => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (v !== undefined && k !== 'transfer-encoding' && k !== 'connection') headers.set(k, headerText(v));
    }
    const url = `http://${headerText(req.headers.host) || 'localhost'}${req.url ?? '/'}`;
    const answer = await opts.yoga.fetch(url, { method: 'POST', headers, body: body.toString('utf8') }, { [FRONT_REQUEST]: true });
    const out = Buffer.from(await answer.arrayBuffer());
    const sent: Record<string, string | number> = {};
    answer.headers.forEach((value, name) => {
      if (name !== 'content-length' && name !== 'transfer-encoding') sent[name] = value;
    });
    const kept = etag !== undefined && answer.status === 200 && !hasErrors(out);
    if (kept) sent.etag = etag;
    res.writeHead(answer.status, { ...sent, 'content-length': out.length }).end(out);
    return { status: answer.status, type: answer.headers.get('content-type') ?? 'application/json', bytes: out, kept };
  };

  return {
    async handle(req, res) {
      if (!takes(req)) return false;
      const body = await readBody(req);
      const ask = boardRequest(body);
      const doc = ask === undefined ? null : documentOf(ask.query);
      if (ask === undefined || doc === null || !cacheable(doc.doc, ask.operationName)) {
        await forward(req, res, body);
        return true;
      }
      const now = await positions(opts.db).catch(() => undefined);
      if (now === undefined) {
        await forward(req, res, body);
        return true;
      }
      if (now !== at) {
        entries.clear();
        bytes = 0;
        at = now;
      }
      const key = JSON.stringify([opts.settings, now, ask.operationName, doc.printed, ask.variables, headerText(req.headers.accept)]);
      const cached = entries.get(key);
      if (cached !== undefined) {
        send(req, res, cached);
        return true;
      }
      misses++;
      const etag = `"${createHash('sha256').update(key).digest('base64url').slice(0, 27)}"`;
      const answer = await forward(req, res, body, etag);
      if (answer.kept && now === at) {
        store(key, { body: answer.bytes, contentType: answer.type, etag });
      }
      return true;
    },
    stats: () => ({ entries: entries.size, bytes, hits, notModified, misses }),
  };
}

/** A GraphQL answer with top-level errors (parsed only when the text names errors at all). */
function hasErrors(body: Buffer): boolean {
  if (!body.includes('"errors"')) return false;
  try {
    const v = JSON.parse(body.toString('utf8')) as { errors?: unknown[] };
    return (Array.isArray(v.errors) && v.errors.length > 0) || !('data' in v);
  } catch {
    return true;
  }
}
