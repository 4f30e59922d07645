/**
 * The snapshot document of a write model (docs/recovery.md "Write-model snapshots"), in two
 * parts so that a start does not read or decode what it does not use:
 *   MAGIC · u32 header length · header · chunk · chunk · …
 * The header is gzip of one JSON object — position, latest day, plan requests, reference store,
 * and the chunk list (each chunk's operation day, flids, byte length and CRC-32). Each chunk is gzip of
 * the JSON array of one operation day's flights. A start fetches the head alone (MAGIC, length,
 * header: `substring` of the stored bytea, src/write/snapshot/newestSnapshot.ts) and the days'
 * bytes one day at a time beside the rest of the start, newest first and a day a decision reads
 * ahead of the others (SnapshotDays); the flights come as a LazyMap whose chunks are decoded on
 * first use (src/platform/lazyMap.ts), so a start costs the header, whatever the number of days
 * the model keeps, and a decision waits only for the days it reads (a chunk read before its bytes
 * are here throws DayNotFetched: WriteModel.deciding). Each chunk's CRC-32 is checked when its
 * bytes arrive: a damaged day is never decoded, and the model starts over from the log
 * (WriteModel.ready), instead of failing one decision after another.
 *
 * Encoding runs off the pump's path: the flights are stringified a slice at a time with a turn of
 * the event loop between slices, and gzip runs on libuv's thread pool, so no slice holds the loop
 * for more than a few milliseconds. A chunk nothing has touched since it was decoded from the
 * previous snapshot is written again byte for byte. The image it encodes is immutable
 * (ModelImage), so the pump carries on meanwhile.
 */
import { CancelledError } from '../../platform/errors.ts';
import { once } from 'node:events';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FlightState } from '../../domain/flight.ts';
import type { PlanRequests, RequestedWindow } from '../../domain/planRequests.ts';
import type { RefFields } from '../../domain/reference/record.ts';
import type { ReferenceState } from '../../domain/reference/state.ts';
import { LazyMap, type LazyChunk } from '../../platform/lazyMap.ts';
import { DayNotFetched } from './dayNotFetched.ts';

/** The write model as of one position; every part is shared with the model and never edited (evolve.ts, state.ts). */
export interface ModelImage {
  readonly position: string;
  readonly latestDay: string | null;
  readonly flights: ReadonlyMap<string, FlightState>;
  readonly reference: ReferenceState;
  readonly planRequests: PlanRequests;
  /**
   * Resolves when every day of `flights` can be decoded (the days' bytes have arrived); rejects
   * when they cannot be read. Absent: they can be now.
   */
  readonly fetched?: Promise<void>;
}

interface ChunkEntry {
  readonly day: string;
  readonly flids: string[];
  readonly bytes: number;
  /** zlib.crc32 of the chunk's bytes. */
  readonly crc: number;
}

/** Where a chunk lies in the days' bytes, and what its bytes must sum to. */
interface ChunkPlace {
  readonly day: string;
  readonly offset: number;
  readonly length: number;
  readonly crc: number;
}

interface Header {
  readonly position: string;
  readonly latestDay: string | null;
  readonly planRequests: RequestedWindow[];
  readonly reference: [string, [string, RefFields][]][];
  readonly chunks: ChunkEntry[];
}

const MAGIC = Buffer.from('msgxWM2\n', 'latin1');

/** Bytes before the header: MAGIC and the header's length (u32, big-endian). */
export const HEAD_PREFIX = MAGIC.length + 4;

/** Flights stringified per turn of the event loop. */
const SLICE = 50;

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);

/**
 * Reads `length` bytes of a stored snapshot's days from `offset` (0: the first byte after the
 * head): a start fetches one day at a time this way (src/write/snapshot/warmModel.ts).
 */
export interface DayReader {
  read(offset: number, length: number): Promise<Buffer>;
  /** Every day is in (no `err`), or one could not be read: nothing more is read. */
  close(err?: unknown): void;
}

interface Deferred {
  readonly promise: Promise<void>;
  resolve(): void;
  reject(err: unknown): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((ok, no) => {
    resolve = ok;
    reject = no;
  });
  promise.catch(() => undefined); // observed by whoever awaits it
  return { promise, resolve, reject };
}

/**
 * The days' part of a stored snapshot (every chunk after the header), which may still be on its
 * way from PostgreSQL: whole (a Buffer, or a Promise of one), or day by day from a DayReader —
 * newest day first, and a day a reader needs (`need`) ahead of the rest (docs/recovery.md "Start
 * cost"). `fetched` resolves when every day is here and rejects when one cannot be read (the row
 * went away, it is shorter than the header's chunk list says, or a chunk's CRC-32 is not the one
 * the header gives). Each day's CRC-32 is checked when its bytes arrive.
 */
export class SnapshotDays {
  readonly #places: readonly ChunkPlace[];
  readonly #bytes: (Buffer | undefined)[];
  readonly #days: Deferred[];
  /** Day indexes still to read from the reader, in the order they will be read. */
  #queue: number[] = [];
  /** Days a reader asked for (`need`): read even before `background` resolves. */
  readonly #asked = new Set<number>();
  /** Resolved (and replaced) when a day is asked for, to wake a reader waiting for `background`. */
  #asking = deferred();
  #background = false;
  readonly fetched: Promise<void>;

  /**
   * `background` (DayReader only): the days nobody asked for are read once it resolves, so that
   * a start's first decisions do not share the event loop with them (docs/recovery.md "Start
   * cost"); absent, at once.
   */
  constructor(bytes: Buffer | Promise<Buffer> | DayReader, chunks: readonly ChunkPlace[], background?: Promise<void>) {
    this.#places = chunks;
    this.#bytes = chunks.map(() => undefined);
    this.#days = chunks.map(() => deferred());
    this.fetched = Promise.all(this.#days.map((d) => d.promise)).then(() => undefined);
    this.fetched.catch(() => undefined); // observed by whoever awaits it
    if (Buffer.isBuffer(bytes) || bytes instanceof Promise) {
      const whole = (b: Buffer): void => {
        const needed = chunks.reduce((n, c) => n + c.length, 0);
        if (b.length < needed) throw new SnapshotFormatError(`write-model snapshot is cut short in its flights (${b.length} of ${needed} bytes)`);
        chunks.forEach((c, i) => this.#take(i, b.subarray(c.offset, c.offset + c.length)));
      };
      const fail = (err: unknown): void => {
        for (const d of this.#days) d.reject(err);
      };
      if (Buffer.isBuffer(bytes)) {
        try {
          whole(bytes);
        } catch (err) {
          fail(err);
        }
      } else {
        bytes.then(whole).catch(fail);
      }
      return;
    }
    // Newest day first: the traffic of a start names today's flights and tomorrow's.
    this.#queue = chunks.map((_, i) => i).sort((a, b) => (chunks[a]!.day < chunks[b]!.day ? 1 : chunks[a]!.day > chunks[b]!.day ? -1 : b - a));
    if (background === undefined) this.#background = true;
    else
      void background.then(
        () => this.#goOn(),
        () => this.#goOn(),
      );
    void this.#readAll(bytes);
  }

  #goOn(): void {
    this.#background = true;
    this.#asking.resolve();
  }

  /** True when day `i`'s bytes are here (checked). */
  has(i: number): boolean {
    return this.#bytes[i] !== undefined;
  }

  /** Day `i`'s bytes, read ahead of the days not asked for yet; rejects when they cannot be read. */
  need(i: number): Promise<void> {
    const at = this.#queue.indexOf(i);
    if (at > 0) {
      this.#queue.splice(at, 1);
      this.#queue.unshift(i);
    }
    if (at >= 0 && !this.#asked.has(i)) {
      this.#asked.add(i);
      this.#asking.resolve();
    }
    return this.#days[i]!.promise;
  }

  slice(i: number, day: string): Buffer {
    const b = this.#bytes[i];
    if (b === undefined) throw new DayNotFetched(day, this.need(i));
    return b;
  }

  #take(i: number, b: Buffer): void {
    const c = this.#places[i]!;
    if (b.length < c.length) throw new SnapshotFormatError(`write-model snapshot is cut short in the flights of ${c.day} (${b.length} of ${c.length} bytes)`);
    if (zlib.crc32(b) !== c.crc) throw new SnapshotFormatError(`write-model snapshot: the flights of ${c.day} are damaged (CRC-32)`);
    this.#bytes[i] = b;
    this.#days[i]!.resolve();
  }

  /** One day after the other, in queue order; the first that cannot be read fails every day still to come. */
  async #readAll(reader: DayReader): Promise<void> {
    try {
      for (let i = this.#queue[0]; i !== undefined; i = this.#queue[0]) {
        if (!this.#background && !this.#asked.has(i)) {
          await this.#asking.promise;
          this.#asking = deferred();
          continue;
        }
        this.#queue.shift();
        const c = this.#places[i]!;
        this.#take(i, await reader.read(c.offset, c.length));
      }
      reader.close();
    } catch (err) {
      for (const d of this.#days) d.reject(err);
      reader.close(err);
    }
  }
}

/**
 * One operation day's flights of a stored snapshot, gzip JSON, decoded on first use (once: the
 * model, the images it captures and the outbox feeder share it). Decoded before its bytes are
 * here, it throws DayNotFetched (and its bytes are read next).
 */
export class SnapshotChunk implements LazyChunk<string, FlightState> {
  private decoded: (readonly [string, FlightState])[] | undefined;

  constructor(
    readonly day: string,
    readonly keys: readonly string[],
    private readonly days: SnapshotDays,
    /** Its place in the header's chunk list. */
    private readonly index: number,
    /** Where its bytes start after the head, how many, and their CRC-32. */
    readonly offset: number,
    readonly length: number,
    readonly crc: number,
  ) {}

  /** True when its bytes are here (decoding it does not wait). */
  get here(): boolean {
    return this.days.has(this.index);
  }

  /** Resolves when the chunk's bytes are here (read ahead of the days not asked for yet). */
  get fetched(): Promise<void> {
    return this.days.need(this.index);
  }

  get body(): Buffer {
    return this.days.slice(this.index, this.day);
  }

  load(): readonly (readonly [string, FlightState])[] {
    if (this.decoded === undefined) this.decoded = decodeDay(this, this.body).map((f) => [f.flid, f] as const);
    return this.decoded;
  }
}

/** The flights of a map grouped for encoding: chunks to write again as they are, and states per day. */
function groupFlights(flights: ReadonlyMap<string, FlightState>): { kept: SnapshotChunk[]; days: Map<string, FlightState[]> } {
  const days = new Map<string, FlightState[]>();
  const add = (f: FlightState): void => {
    const list = days.get(f.operationDay);
    if (list) list.push(f);
    else days.set(f.operationDay, [f]);
  };
  const kept: SnapshotChunk[] = [];
  if (!(flights instanceof LazyMap)) {
    for (const f of flights.values()) add(f);
    return { kept, days };
  }
  const { decoded, pending } = (flights as LazyMap<string, FlightState>).split();
  for (const [, f] of decoded) add(f);
  for (const [chunk, flids] of pending) {
    if (chunk instanceof SnapshotChunk && flids.length === chunk.keys.length) {
      kept.push(chunk);
      continue;
    }
    const wanted = new Set(flids);
    for (const [flid, f] of chunk.load()) if (wanted.has(flid)) add(f);
  }
  return { kept, days };
}

export class SnapshotFormatError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'SnapshotFormatError';
  }
}

/** `cancelled`: asked between slices; true ends the encoding with SnapshotCancelled (a stop). */
export class SnapshotCancelled extends CancelledError {
  constructor() {
    super('write-model snapshot cancelled by a stop');
  }
}

/** gzip of the JSON array of `flights`, stringified SLICE flights per turn of the event loop and streamed into gzip. */
async function gzipSlices(flights: readonly FlightState[], cancelled: () => boolean): Promise<Buffer> {
  const zip = zlib.createGzip({ level: 6 });
  const out: Buffer[] = [];
  zip.on('data', (b: Buffer) => out.push(b));
  const ended = once(zip, 'end');
  const write = async (text: string): Promise<void> => {
    if (!zip.write(text)) await once(zip, 'drain');
  };
  await write('[');
  for (let i = 0; i < flights.length; i += SLICE) {
    await write(`${i > 0 ? ',' : ''}${JSON.stringify(flights.slice(i, i + SLICE)).slice(1, -1)}`);
    await turn();
    if (cancelled()) {
      zip.destroy();
      throw new SnapshotCancelled();
    }
  }
  zip.end(']');
  await ended;
  return Buffer.concat(out);
}

export async function encodeImage(image: ModelImage, cancelled: () => boolean = () => false): Promise<Buffer> {
  await image.fetched;
  const { kept, days } = groupFlights(image.flights);
  const chunks: ChunkEntry[] = kept.map((c) => ({ day: c.day, flids: [...c.keys], bytes: c.length, crc: c.crc }));
  const bodies: Buffer[] = kept.map((c) => c.body);
  for (const [day, flights] of days) {
    const body = await gzipSlices(flights, cancelled);
    chunks.push({ day, flids: flights.map((f) => f.flid), bytes: body.length, crc: zlib.crc32(body) });
    bodies.push(body);
  }
  const reference = [...image.reference].map(([kind, records]) => [kind, [...records]]);
  const header: Header = { position: image.position, latestDay: image.latestDay, planRequests: [...image.planRequests.values()], reference: reference as Header['reference'], chunks };
  const head = await gzip(JSON.stringify(header));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(head.length);
  return Buffer.concat([MAGIC, length, head, ...bodies]);
}

/** The header's length, from the document's first HEAD_PREFIX bytes. */
export function headLength(prefix: Buffer): number {
  if (prefix.length < HEAD_PREFIX || !prefix.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new SnapshotFormatError('write-model snapshot is not a snapshot document of this version');
  }
  return HEAD_PREFIX + prefix.readUInt32BE(MAGIC.length);
}

/**
 * The image of a stored snapshot from its head (MAGIC, length, header) and its days' bytes, which
 * may still be coming (whole, or day by day from a DayReader): the reference store, plan requests,
 * position and latest day are there at once, each day's flights from the time its bytes are here.
 * From a DayReader, the days nobody asked for are read once `background` resolves (absent: at once).
 */
export async function decodeHead(head: Buffer, days: Buffer | Promise<Buffer> | DayReader, background?: Promise<void>): Promise<ModelImage> {
  const headEnd = headLength(head);
  if (head.length < headEnd) throw new SnapshotFormatError('write-model snapshot is cut short in its header');
  let header: Header;
  try {
    header = JSON.parse((await gunzip(head.subarray(HEAD_PREFIX, headEnd))).toString('utf8')) as Header;
  } catch (err) {
    throw new SnapshotFormatError('write-model snapshot header is not gzip JSON', { cause: err });
  }
  if (typeof header.position !== 'string' || !Array.isArray(header.chunks) || !Array.isArray(header.reference) || !Array.isArray(header.planRequests)) {
    throw new SnapshotFormatError('write-model snapshot lacks position, chunks, reference or plan requests');
  }
  if (header.chunks.some((c) => typeof c.crc !== 'number' || typeof c.bytes !== 'number')) throw new SnapshotFormatError('write-model snapshot lacks a chunk length or CRC-32');
  let at = 0;
  const places = header.chunks.map((c) => {
    const place = { day: c.day, offset: at, length: c.bytes, crc: c.crc };
    at += c.bytes;
    return place;
  });
  const stored = new SnapshotDays(days, places, background);
  const flights = new LazyMap<string, FlightState>();
  header.chunks.forEach((c, i) => flights.addChunk(new SnapshotChunk(c.day, c.flids, stored, i, places[i]!.offset, c.bytes, c.crc)));
  return {
    position: header.position,
    latestDay: header.latestDay ?? null,
    flights,
    reference: new Map(header.reference.map(([kind, records]) => [kind, new Map(records)])),
    planRequests: new Map(header.planRequests.map((w) => [w.mgid, w])),
    fetched: stored.fetched,
  };
}

/** The chunks of a decoded image still undecoded, newest day last (for a check that reads a few days only). */
export function chunksOf(image: ModelImage): SnapshotChunk[] {
  if (!(image.flights instanceof LazyMap)) return [];
  return [...(image.flights as LazyMap<string, FlightState>).split().pending.keys()].filter((c) => c instanceof SnapshotChunk).sort((a, b) => a.offset - b.offset);
}

/** One day's flights from the bytes of its chunk. */
export function decodeDay(chunk: SnapshotChunk, body: Buffer): FlightState[] {
  try {
    return JSON.parse(zlib.gunzipSync(body).toString('utf8')) as FlightState[];
  } catch (err) {
    throw new SnapshotFormatError(`write-model snapshot: the flights of ${chunk.day} cannot be read`, { cause: err });
  }
}

/** The image of a whole stored document (head and days at hand). */
export async function decodeImage(body: Buffer): Promise<ModelImage> {
  const headEnd = headLength(body);
  if (body.length < headEnd) throw new SnapshotFormatError('write-model snapshot is cut short in its header');
  return decodeHead(body.subarray(0, headEnd), body.subarray(headEnd));
}
