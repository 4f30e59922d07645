/**
 * The pump's decode worker thread (headDecoder.ts): decodes one head's raw input at a time off the
 * writer's event loop, so that a slow message cannot hold back HTTP or the writer lock's keepalive
 * (docs/architecture.md "Decode budget"). Imports only decodeHead (the codec).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { decodeHead } from './decodeHead.ts';
import type { DecodeWorkerData, FromDecodeWorker, ToDecodeWorker } from './headDecoder.ts';

const data = workerData as DecodeWorkerData;
const port = parentPort!;
const post = (m: FromDecodeWorker): void => port.postMessage(m);

port.on('message', (m: ToDecodeWorker) => {
  try {
    post({ type: 'decoded', id: m.id, decoded: decodeHead(m.rawXml, m.nulReplaced, data.cfg) });
  } catch (err) {
    post({ type: 'failed', id: m.id, error: err instanceof Error ? err.message : String(err) });
  }
});
post({ type: 'ready' });
