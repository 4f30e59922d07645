/** An event as proposed by the client in an Append call. */
export interface ProposedEvent {
  readonly id: string;
  readonly type: string;
  readonly contentType: string;
  readonly data: Uint8Array;
  readonly customMetadata: Uint8Array;
}

export interface RecordedEvent extends ProposedEvent {
  readonly streamName: string;
  readonly revision: bigint;
  /** Position in the global log ($all); commit and prepare positions are equal here. */
  readonly position: bigint;
  /** 100-ns ticks since the Unix epoch, as the server reports `created`. */
  readonly createdTicks: bigint;
}

export type ExpectedRevision =
  | { readonly kind: 'any' }
  | { readonly kind: 'no_stream' }
  | { readonly kind: 'stream_exists' }
  | { readonly kind: 'exact'; readonly revision: bigint };

export type AppendOutcome =
  | { readonly success: true; readonly currentRevision: bigint; readonly position: bigint }
  /** `currentRevision` null: the stream does not exist. */
  | { readonly success: false; readonly currentRevision: bigint | null };

export type ReadFrom = 'start' | 'end' | bigint;

export interface ReadOptions {
  readonly from: ReadFrom;
  readonly direction: 'forwards' | 'backwards';
  readonly maxCount: bigint;
}

const TICKS_PER_MS = 10_000n;

/**
 * In-memory streams with EventStoreDB's optimistic-concurrency rules. Like the server, a retried
 * append whose event ids were already written right after the expected revision (or, with
 * `any`, anywhere as a contiguous run) succeeds without writing them again.
 */
export class EventStreams {
  private readonly byName = new Map<string, RecordedEvent[]>();
  private nextPosition = 0n;

  append(streamName: string, expected: ExpectedRevision, events: readonly ProposedEvent[], nowMs: number): AppendOutcome {
    const stream = this.byName.get(streamName) ?? [];
    const current = stream.length === 0 ? null : BigInt(stream.length - 1);
    const retried = alreadyWritten(stream, expected, events);
    if (retried !== null) return { success: true, currentRevision: retried.revision, position: retried.position };
    if (!satisfies(expected, current)) return { success: false, currentRevision: current };
    if (events.length === 0) {
      return { success: true, currentRevision: current ?? -1n, position: stream.at(-1)?.position ?? -1n };
    }
    const createdTicks = BigInt(nowMs) * TICKS_PER_MS;
    for (const event of events) {
      stream.push({ ...event, streamName, revision: BigInt(stream.length), position: this.nextPosition, createdTicks });
      this.nextPosition += 1n;
    }
    this.byName.set(streamName, stream);
    const last = stream[stream.length - 1];
    if (last === undefined) throw new Error('unreachable: appended events are missing');
    return { success: true, currentRevision: last.revision, position: last.position };
  }

  /** The selected events, or null when the stream does not exist. */
  read(streamName: string, options: ReadOptions): RecordedEvent[] | null {
    const stream = this.byName.get(streamName);
    if (stream === undefined) return null;
    const last = BigInt(stream.length - 1);
    const count = options.maxCount;
    if (options.direction === 'forwards') {
      const from = options.from === 'start' ? 0n : options.from === 'end' ? last + 1n : options.from;
      return stream.filter((e) => e.revision >= from && e.revision < from + count);
    }
    const from = options.from === 'start' ? 0n : options.from === 'end' ? last : options.from;
    return stream.filter((e) => e.revision <= from && e.revision > from - count).reverse();
  }

  all(): ReadonlyMap<string, readonly RecordedEvent[]> {
    return this.byName;
  }
}

function satisfies(expected: ExpectedRevision, current: bigint | null): boolean {
  switch (expected.kind) {
    case 'any':
      return true;
    case 'no_stream':
      return current === null;
    case 'stream_exists':
      return current !== null;
    case 'exact':
      return current === expected.revision;
  }
}

/** The last already-stored event of an idempotent retry, or null when this is not one. */
function alreadyWritten(
  stream: readonly RecordedEvent[],
  expected: ExpectedRevision,
  events: readonly ProposedEvent[],
): RecordedEvent | null {
  const first = events[0];
  if (first === undefined) return null;
  let start: number;
  switch (expected.kind) {
    case 'no_stream':
      start = 0;
      break;
    case 'exact':
      start = Number(expected.revision) + 1;
      break;
    case 'any':
    case 'stream_exists':
      start = stream.findIndex((e) => e.id === first.id);
      break;
  }
  if (start < 0 || start + events.length > stream.length) return null;
  const matches = events.every((e, i) => stream[start + i]?.id === e.id);
  return matches ? (stream[start + events.length - 1] ?? null) : null;
}
