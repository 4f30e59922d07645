/** Worker thread of the week fixture: decides the days it is sent (weekDay.ts). */
import { parentPort } from 'node:worker_threads';
import { decideDay } from './weekDay.ts';

parentPort!.on('message', (index: number) => void decideDay(index).then((rows) => parentPort!.postMessage(rows)));
