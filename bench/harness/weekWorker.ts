/** Worker thread of the week fixture: decides the days it is sent (weekDay.ts). */
import { parentPort } from 'node:worker_threads';
import { decideDay, decideHistoryDay } from './weekDay.ts';

/** A number: day `index` of the week fixture; `{ history: n }`: day n of the history figure's log. */
parentPort!.on('message', (job: number | { history: number }) =>
  void (typeof job === 'number' ? decideDay(job) : decideHistoryDay(job.history)).then((rows) => parentPort!.postMessage(rows)));
