/**
 * The snapshot document of a write model (docs/recovery.md "Write-model snapshots"): gzip of one
 * JSON object — position, latest day, plan requests, reference store, flights. Encoding runs off
 * the pump's path: the flights are stringified a slice at a time with a turn of the event loop
 * between slices, and gzip runs on libuv's thread pool, so no slice holds the loop for more than
 * a few milliseconds. The image it encodes is immutable (ModelImage), so the pump carries on
 * meanwhile.
 */
import { CancelledError } from '../../platform/errors.ts';
import { once } from 'node:events';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FlightState } from '../../domain/flight.ts';
import type { PlanRequests, RequestedWindow } from '../../domain/planRequests.ts';
import type { RefFields } from '../../domain/reference/record.ts';
import type { ReferenceState } from '../../domain/reference/state.ts';

/** The write model as of one position; every part is shared with the model and never edited (evolve.ts, state.ts). */
export interface ModelImage {
  readonly position: string;
  readonly latestDay: string | null;
  readonly flights: ReadonlyMap<string, FlightState>;
  readonly reference: ReferenceState;
  readonly planRequests: PlanRequests;
}

interface Document {
  readonly position: string;
  readonly latestDay: string | null;
  readonly planRequests: RequestedWindow[];
  readonly reference: [string, [string, RefFields][]][];
  readonly flights: FlightState[];
}

/** Flights stringified per turn of the event loop. */
const SLICE = 50;

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

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

export async function encodeImage(image: ModelImage, cancelled: () => boolean = () => false): Promise<Buffer> {
  const gzip = zlib.createGzip({ level: 6 });
  const out: Buffer[] = [];
  gzip.on('data', (b: Buffer) => out.push(b));
  const ended = once(gzip, 'end');
  const write = async (text: string): Promise<void> => {
    if (!gzip.write(text)) await once(gzip, 'drain');
  };
  const reference = [...image.reference].map(([kind, records]) => [kind, [...records]]);
  const head = { position: image.position, latestDay: image.latestDay, planRequests: [...image.planRequests.values()], reference };
  const json = JSON.stringify(head);
  await write(`${json.slice(0, -1)},"flights":[`);
  const flights = [...image.flights.values()];
  for (let i = 0; i < flights.length; i += SLICE) {
    const text = JSON.stringify(flights.slice(i, i + SLICE));
    await write(`${i > 0 ? ',' : ''}${text.slice(1, -1)}`);
    await turn();
    if (cancelled()) {
      gzip.destroy();
      throw new SnapshotCancelled();
    }
  }
  gzip.end(']}');
  await ended;
  return Buffer.concat(out);
}

const gunzip = promisify(zlib.gunzip);

export async function decodeImage(body: Buffer): Promise<ModelImage> {
  let doc: Document;
  try {
    doc = JSON.parse((await gunzip(body)).toString('utf8')) as Document;
  } catch (err) {
    throw new SnapshotFormatError('write-model snapshot is not a gzip JSON document', { cause: err });
  }
  if (typeof doc.position !== 'string' || !Array.isArray(doc.flights) || !Array.isArray(doc.reference) || !Array.isArray(doc.planRequests)) {
    throw new SnapshotFormatError('write-model snapshot lacks position, flights, reference or plan requests');
  }
  return {
    position: doc.position,
    latestDay: doc.latestDay ?? null,
    flights: new Map(doc.flights.map((f) => [f.flid, f])),
    reference: new Map(doc.reference.map(([kind, records]) => [kind, new Map(records)])),
    planRequests: new Map(doc.planRequests.map((w) => [w.mgid, w])),
  };
}
