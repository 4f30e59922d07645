import type { Service } from '../../platform/service.ts';
import { createWakingListener } from '../../platform/listen.ts';
import { createServiceLoop } from '../../platform/serviceLoop.ts';
import { Wakeup } from '../../platform/wakeup.ts';
import { answerRequests } from './answerRequests.ts';
import { runDailyRequest } from './dailyRequest.ts';
import { expireRequests, nextRequestDue } from './expireRequests.ts';
import { recordShadowRequest } from './recordShadowRequest.ts';
import { localDate, localInstant, nextDate } from './aodbTime.ts';
import { dailyRunToday, nextDayWindow } from './requestWindow.ts';
import { sendRequests, type RequestDeps } from './sendRequests.ts';
import { requestReferenceAtStart } from './requestReference.ts';
import { Channels } from '../../platform/channels.ts';

export interface RequestTrackerDeps extends RequestDeps {
  /** For LISTEN msgx_decision. */
  readonly databaseUrl: string;
  /** MSGX_REQUEST_PLAN_DAILY_AT (HH:MM airport time), or none. */
  readonly dailyAt: string | undefined;
  /** Safety poll. Default 60 s. */
  readonly pollMs?: number;
  /** MSGX_REQUEST_REFERENCE_AT_START: request every reference kind once when the store is empty. */
  readonly referenceAtStart?: boolean;
  /** Shadow mode: nothing is sent; the daily request is recorded as a decision (recordShadowRequest). */
  readonly shadow?: boolean;
}

/**
 * The plan-request tracker (writer role). Each round: send REGISTERED requests that are due
 * (RQFD → COUTMSGS), mark DONE the ones a SCHD/RESP decision answered, EXPIRE the ones past
 * expires_at, and register the daily request when it is due. Rounds run on LISTEN msgx_decision
 * (a RESP may have been decided), when the next expiry / retry / daily time comes, and on a poll.
 */
export function createRequestTracker(deps: RequestTrackerDeps): Service {
  const log = deps.log;
  const wakeup = new Wakeup();
  const listener = createWakingListener(wakeup, {
    name: 'request tracker',
    source: { url: deps.databaseUrl },
    channels: [Channels.decision],
    meanwhile: 'requests are looked at every poll until it is back',
    clock: deps.clock,
    log,
  });
  let referenceAtStart = deps.referenceAtStart === true;

  /** Shadow mode: the daily request is recorded (once per day), never sent. */
  const shadowRound = async (): Promise<Date> => {
    const wakeAt = [deps.clock.now().getTime() + (deps.pollMs ?? 60_000)];
    if (deps.dailyAt) {
      const now = deps.clock.now();
      const tz = deps.cfg.airportTz;
      const dueAt = dailyRunToday(now, deps.dailyAt, tz);
      if (now.getTime() < dueAt.getTime()) {
        wakeAt.push(dueAt.getTime());
      } else {
        const w = nextDayWindow(now, tz);
        const rec = await recordShadowRequest(deps.pool, { from: w.from, to: w.to, now, dailyFor: w.day, requestedBy: 'msgx (daily)' });
        if (rec) log.info({ day: w.day, position: rec.position }, 'shadow mode: daily plan request recorded, not sent');
        const [h, m] = deps.dailyAt.split(':').map(Number) as [number, number];
        wakeAt.push(localInstant(nextDate(localDate(now, tz)), h, m, tz).getTime());
      }
    }
    return new Date(Math.min(...wakeAt));
  };

  const round = async (): Promise<Date> => {
    if (deps.shadow) return shadowRound();
    if (referenceAtStart) {
      const asked = await requestReferenceAtStart(deps);
      referenceAtStart = false;
      if (asked) log.info({ kinds: asked.requests.length, sent: asked.requests.filter((a) => a.send?.sent).length }, 'reference store is empty: every kind requested (RQRD)');
    }
    await sendRequests(deps);
    for (const a of await answerRequests(deps.pool, deps.cfg.airportTz)) {
      const what = a.by === 'kind' ? 'reference request' : 'plan request';
      log.info({ reqId: a.reqId, mgid: a.mgid, answeredBy: a.answeredBy, matchedBy: a.by }, `${what} answered (DONE)`);
    }
    for (const mgid of await expireRequests(deps.pool, deps.clock.now())) {
      log.warn({ mgid }, `${mgid.startsWith('MSGX-RR') ? 'reference' : 'plan'} request EXPIRED without an answer`);
    }
    const wakeAt = [deps.clock.now().getTime() + (deps.pollMs ?? 60_000)];
    if (deps.dailyAt) {
      const daily = await runDailyRequest(
        deps.pool,
        { at: deps.dailyAt, tz: deps.cfg.airportTz, expireMs: deps.cfg.requestExpireMs },
        deps.clock.now(),
      );
      if (daily.registered) {
        log.info({ ...daily.registered }, 'daily plan request registered');
        await sendRequests(deps, daily.registered.reqId);
      }
      wakeAt.push(daily.nextRun.getTime());
    }
    const due = await nextRequestDue(deps.pool);
    if (due) wakeAt.push(due.getTime());
    return new Date(Math.min(...wakeAt));
  };

  const loop = createServiceLoop({
    clock: deps.clock,
    log,
    failedMsg: 'request tracker round failed; will retry every second',
    resumedMsg: 'request tracker resumed',
    wakeup,
    step: async () => (await round()).getTime() - deps.clock.now().getTime(),
    retryMs: () => 1000,
  });

  return {
    name: 'request-tracker',
    async start() {
      await listener.start();
      loop.start();
      log.info({ dailyAt: deps.dailyAt ?? null, expireMs: deps.cfg.requestExpireMs }, 'request tracker started');
    },
    async stop() {
      await loop.stop();
      await listener.stop();
    },
  };
}
