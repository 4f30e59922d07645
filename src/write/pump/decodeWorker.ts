/**
 * The pump's decode worker thread (headDecoder.ts): decodes one head's raw input at a time off the
 * writer's event loop, so that a slow message cannot hold back HTTP or the writer lock's keepalive
 * (docs/architecture.md "Decode budget"). Imports only decodeHead (the codec).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { currentThreadId } from '../../platform/threadCpu.ts';
import { decodeHead, PARTS_AHEAD, partedRecords, RECORDS_PER_PART, type DecodedHead } from './decodeHead.ts';
import type { DecodeWorkerData, FromDecodeWorker, ToDecodeWorker } from './headDecoder.ts';

const data = workerData as DecodeWorkerData;
const port = parentPort!;
const post = (m: FromDecodeWorker): void => port.postMessage(m);

/** The records of the decode being handed over, RECORDS_PER_PART at a time: PARTS_AHEAD at once, then one per `next`. */
let handing: { readonly id: number; readonly records: unknown[]; at: number } | null = null;

port.on('message', (m: ToDecodeWorker) => {
  if (m.type === 'next') return nextPart(m.id);
  handing = null;
  let decoded: DecodedHead;
  try {
    decoded = decodeHead(m.rawXml, m.nulReplaced, data.cfg);
  } catch (err) {
    return post({ type: 'failed', id: m.id, error: err instanceof Error ? err.message : String(err) });
  }
  const records = partedRecords(decoded);
  if (!decoded.ok || records === undefined || records.length <= RECORDS_PER_PART) return post({ type: 'decoded', id: m.id, decoded, parts: 0 });
  // The message without its records first, then the records in parts (headDecoder.ts, RECORDS_PER_PART).
  handing = { id: m.id, records, at: 0 };
  const message = { ...decoded.message, records: [] };
  post({ type: 'decoded', id: m.id, decoded: { ...decoded, message } as DecodedHead, parts: Math.ceil(records.length / RECORDS_PER_PART) });
  for (let k = 0; k < PARTS_AHEAD; k++) nextPart(m.id);
});

function nextPart(id: number): void {
  if (handing === null || handing.id !== id) return;
  const part = handing.records.slice(handing.at, handing.at + RECORDS_PER_PART);
  handing.at += RECORDS_PER_PART;
  if (handing.at >= handing.records.length) handing = null;
  // As JSON text: the writer thread parses it natively, far faster than it reads a structured clone
  // of the same objects (docs/architecture.md "Decode budget").
  post({ type: 'records', id, json: JSON.stringify(part) });
}
post({ type: 'ready', tid: currentThreadId() });
