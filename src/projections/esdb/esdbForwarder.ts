import {
  BACKWARDS,
  END,
  NO_STREAM,
  StreamNotFoundError,
  WrongExpectedVersionError,
  jsonEvent,
  type EventStoreDBClient,
} from '@eventstore/db-client';
import type { PoolClient } from '../../platform/db.ts';
import type { Logger } from '../../platform/logger.ts';
import type { DecisionEvent } from '../../log/readDecisions.ts';
import type { Projector } from '../projector.ts';
import { readDecisionRange } from '../../log/readDecisions.ts';
import { ESDB_PROJECTOR } from './streamNames.ts';
import { isAfter, planAppends, type EventOrigin, type PlannedEvent } from './planAppends.ts';

export { ESDB_PROJECTOR }; // its tests and callers name it from here

/** EventStoreDB's default MaxAppendSize: 1 MiB per append (the server may be set up to 16 MiB). */
export const DEFAULT_MAX_APPEND_BYTES = 1024 * 1024;
const HEAD_SCAN = 100;

/** What we know of one EventStoreDB stream: its revision and the last log entry it holds. */
interface StreamHead {
  readonly revision: bigint | null; // null = the stream does not exist
  readonly last: EventOrigin | null;
}

/**
 * Forwards every decision to EventStoreDB/KurrentDB: per-flight streams and per-message streams.
 *
 * Runs as a projector, so its checkpoint advances in `projection_checkpoint` only in the transaction
 * that follows the server's acknowledgement. It is idempotent across crashes without trusting the
 * server's own duplicate detection: before appending to a stream it knows (or reads) the stream's
 * head — the (position, seq) of the last event in its metadata — appends only what comes after it,
 * with the head's revision as the expected revision. A crash between append and checkpoint therefore
 * re-reads the heads and appends nothing twice; a concurrent writer shows up as WrongExpectedVersion,
 * which re-reads the head once and otherwise fails the batch (retried by the runtime).
 */
export function createEsdbForwarder(client: EventStoreDBClient, log: Logger, opts: { concurrency?: number; maxAppendBytes?: number } = {}): Projector {
  const heads = new Map<string, StreamHead>();
  const concurrency = opts.concurrency ?? 8;
  /** The server's MaxAppendSize (MSGX_ESDB_MAX_APPEND_BYTES): no append, and so no event, is larger (docs/scaling.md "EventStoreDB"). */
  const maxAppendBytes = opts.maxAppendBytes ?? DEFAULT_MAX_APPEND_BYTES;

  /**
   * The stream's revision, and the last of OUR events in it (other writers may append to the same
   * stream: their events carry no log position and are skipped over, up to HEAD_SCAN events back).
   */
  async function readHead(stream: string): Promise<StreamHead> {
    let revision: bigint | null = null;
    try {
      for await (const resolved of client.readStream(stream, { direction: BACKWARDS, fromRevision: END, maxCount: HEAD_SCAN })) {
        const ev = resolved.event;
        if (!ev) continue;
        revision ??= ev.revision;
        const md = (ev.metadata ?? {}) as { position?: unknown; seq?: unknown };
        if (typeof md.position === 'string' && typeof md.seq === 'number') {
          return { revision, last: { position: md.position, seq: md.seq } };
        }
      }
      return { revision, last: null };
    } catch (err) {
      if (err instanceof StreamNotFoundError) return { revision: null, last: null };
      throw err;
    }
  }

  async function appendStream(stream: string, events: readonly PlannedEvent[], retried = false): Promise<void> {
    let head = heads.get(stream) ?? (await readHead(stream));
    const todo = events.filter((e) => isAfter(e, head.last));
    heads.set(stream, head);
    try {
      // In appends of at most maxAppendBytes, each expecting the revision the one before left.
      for (const part of appendParts(todo, maxAppendBytes)) {
        const res = await client.appendToStream(
          stream,
          part.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data, metadata: e.metadata })),
          { expectedRevision: head.revision ?? NO_STREAM },
        );
        const last = part[part.length - 1]!;
        head = { revision: res.nextExpectedRevision, last: { position: last.position, seq: last.seq } };
        heads.set(stream, head);
      }
    } catch (err) {
      heads.delete(stream);
      if (err instanceof WrongExpectedVersionError && !retried) {
        log.warn({ stream }, 'stream moved under us; re-reading its head');
        return appendStream(stream, events, true);
      }
      throw err;
    }
  }

  return {
    name: ESDB_PROJECTOR,
    async apply(pg: PoolClient, events: readonly DecisionEvent[], from: string) {
      const to = events[events.length - 1]?.position;
      if (to === undefined) return;
      const decisions = await readDecisionRange(pg, from, to);
      const plan = [...planAppends(decisions, maxAppendBytes)];
      // Streams are independent: append several at once; each stream's events stay in order.
      let next = 0;
      const worker = async () => {
        while (next < plan.length) {
          const [stream, evs] = plan[next++]!;
          await appendStream(stream, evs);
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, plan.length) }, worker));
    },
    rolledBack() {
      heads.clear();
    },
  };
}

/** `events` in consecutive parts of at most `maxBytes` each (an event larger than that alone in its part). */
export function appendParts(events: readonly PlannedEvent[], maxBytes: number): PlannedEvent[][] {
  const parts: PlannedEvent[][] = [];
  let part: PlannedEvent[] = [];
  let bytes = 0;
  for (const e of events) {
    if (part.length > 0 && bytes + e.bytes > maxBytes) {
      parts.push(part);
      part = [];
      bytes = 0;
    }
    part.push(e);
    bytes += e.bytes;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}
