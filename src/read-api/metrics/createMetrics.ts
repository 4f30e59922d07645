/**
 * Prometheus metrics, computed from SQL at scrape time (so an `api`-only process on a replica
 * shows the same numbers as the writer): gauges from the one-statement pipeline status, counters
 * and the delivery latency histogram from incremental scans of the log and the outbox.
 */
import client from 'prom-client';
import type { Clock } from '../../platform/clock.ts';
import type { Queryable } from '../../platform/db.ts';
import type { Mailbox } from '../../platform/mailbox/port.ts';
import type { ModeProbe } from '../../platform/runMode.ts';
import { TARGETS } from '../../domain/contract.ts';
import { pipelineStatus } from '../../readModel/pipelineStatus.ts';
import { selectConsistency } from '../sql/selectConsistency.ts';
import { countDecisionsAfter } from '../../log/countDecisions.ts';
import { selectSentAfter } from './scrapeCounters.ts';

const SCAN_LIMIT = 50_000;
export const DELIVERY_LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900];

export interface Metrics {
  readonly registry: client.Registry;
  /** Refresh every metric from the database and render the exposition text. */
  scrape(): Promise<string>;
}

/** How long a scrape waits for the mailbox to answer before calling it unreachable. */
const MAILBOX_PING_MS = 2000;

export function createMetrics(deps: {
  db: Queryable; clock: Clock;
  /** The primary when `db` is a replica (msgx_replica_lag_*). */
  primary?: Queryable;
  /** The airport's time zone (the status' "today"). */
  tz: string;
  mailbox?: Pick<Mailbox, 'ping'>; defaultMetrics?: boolean; mode?: ModeProbe;
  /** This process's fenced commits and sends (a writer's; in memory, not from SQL: docs/operations.md "Writer fenced"). */
  fenced?: { readonly value: number };
}): Metrics {
  const registry = new client.Registry();
  if (deps.defaultMetrics !== false) client.collectDefaultMetrics({ register: registry, prefix: 'msgx_process_' });
  const g = (name: string, help: string, labelNames: string[] = []) =>
    new client.Gauge({ name, help, labelNames, registers: [registry] });

  const backlog = g('msgx_backlog_messages', 'Messages not yet terminal (PENDING or FAILED)');
  const replicaPositions = g('msgx_replica_lag_positions', 'Log positions the replica the API reads from does not show yet (absent on the primary)');
  const replicaSeconds = g('msgx_replica_lag_seconds', 'Seconds the replica the API reads from is behind the primary (absent on the primary)');
  const headAge = g('msgx_head_age_seconds', 'Age of the FIFO head (smallest unfinished message) since it was copied; 0 when there is none');
  const failed = g('msgx_failed_messages', 'Messages FAILED and waiting for a retry');
  const dead = g('msgx_dead_messages', 'Messages DEAD');
  const logPosition = g('msgx_log_position', 'Last position of the decision log');
  const projPosition = g('msgx_projection_position', 'Checkpoint of each projector', ['projection']);
  const projLag = g('msgx_projection_lag', 'Decisions not yet applied by each projector', ['projection']);
  const projStalled = g(
    'msgx_projection_stalled_seconds',
    'How long decisions have waited for each projector while its checkpoint did not move; 0 when none waits',
    ['projection'],
  );
  const outboxPending = g('msgx_outbox_pending', 'Outbox events waiting for delivery', ['target']);
  const outboxDead = g('msgx_outbox_dead', 'Outbox events DEAD', ['target']);
  const shadow = g('msgx_shadow_mode', '1 while msgx runs in shadow mode beside the legacy system (no write-back, no COUTMSGS, prefixed topics), else 0');
  const outboxAge = g('msgx_outbox_oldest_pending_age_seconds', 'Age of the oldest pending outbox event', ['target']);
  const openGaps = g('msgx_open_gaps', 'CMINMSGS id gaps open now (the pump waits below the lowest)');
  const gapAge = g('msgx_oldest_open_gap_age_seconds', 'Age of the oldest open gap; 0 when none is open');
  const parked = g('msgx_parked_messages', 'Messages PARKED (waiting for an operator or for data)');
  const writeBacks = g('msgx_pending_writebacks', 'CMINMSGS write-backs (DATE_PROCESSED/STATUS) not done yet');
  const mailboxUp = g('msgx_mailbox_up', '1 when the shared mailbox answered the last scrape, else 0');
  const decisions = new client.Counter({
    name: 'msgx_decisions_total', help: 'Decisions appended to the log, by kind', labelNames: ['kind'], registers: [registry],
  });
  const skipped = new client.Counter({
    name: 'msgx_skipped_total', help: 'Skipped decisions by reason (duplicate-of, unknown-flight, …)', labelNames: ['reason'], registers: [registry],
  });
  const latency = new client.Histogram({
    name: 'msgx_delivery_latency_seconds',
    help: 'From the decision being recorded to its delivery being confirmed, per target',
    labelNames: ['target'],
    buckets: DELIVERY_LATENCY_BUCKETS,
    registers: [registry],
  });

  // In memory, counted by this process's writer lock (0 in a process that is not the writer).
  let fencedSeen = 0;
  new client.Counter({
    name: 'msgx_writer_fenced_total',
    help: 'Commits and sends of this writer refused because it no longer holds the writer lock; the process exits with code 1 after the first',
    registers: [registry],
    collect() {
      const now = deps.fenced?.value ?? 0;
      if (now > fencedSeen) this.inc(now - fencedSeen);
      fencedSeen = now;
    },
  });

  const consistencyChecked = new client.Counter({
    name: 'msgx_consistency_checked_total',
    help: 'Flights compared with their fold from the log by the consistency checks (sentinel on start and daily, msgx verify --record)',
    registers: [registry],
  });
  const consistencyMismatches = g('msgx_consistency_mismatches', 'Mismatches found by the latest consistency check (0 before the first)');
  const consistencyAt = g('msgx_consistency_last_check_timestamp_seconds', 'When the latest consistency check took its snapshot (0 before the first)');
  let consistencySeen = 0;

  let decisionMark = '0';
  const sentMarks = new Map<string, string>(TARGETS.map((t) => [t, '0']));
  let inFlight: Promise<string> | null = null;

  async function refresh(): Promise<void> {
    const at = deps.clock.now();
    const p = await pipelineStatus(deps.db, { now: at, tz: deps.tz }, deps.primary ? { primary: deps.primary } : {});
    const now = at.getTime();
    replicaPositions.reset();
    replicaSeconds.reset();
    if (p.replica?.positions != null) replicaPositions.set(p.replica.positions);
    if (p.replica?.seconds != null) replicaSeconds.set(p.replica.seconds);
    if (deps.mode) shadow.set((await deps.mode()).shadow ? 1 : 0);
    backlog.set(p.backlog);
    failed.set(p.failed);
    dead.set(p.dead);
    headAge.set(p.head ? Math.max(0, (now - p.head.ingestedAt.getTime()) / 1000) : 0);
    logPosition.set(Number(p.lastPosition));
    projPosition.reset();
    projLag.reset();
    projStalled.reset();
    for (const pr of p.projections) {
      projPosition.set({ projection: pr.name }, Number(pr.position));
      projLag.set({ projection: pr.name }, Number(pr.lag));
      projStalled.set({ projection: pr.name }, pr.waitingSince ? Math.max(0, (now - pr.waitingSince.getTime()) / 1000) : 0);
    }
    for (const o of p.outbox) {
      outboxPending.set({ target: o.target }, o.pending);
      outboxDead.set({ target: o.target }, o.dead);
      outboxAge.set({ target: o.target }, o.oldestPendingAt ? Math.max(0, (now - o.oldestPendingAt.getTime()) / 1000) : 0);
    }
    openGaps.set(p.gaps.open);
    gapAge.set(p.gaps.oldestOpenedAt ? Math.max(0, (now - p.gaps.oldestOpenedAt.getTime()) / 1000) : 0);
    parked.set(p.parked);
    writeBacks.set(p.backfillPending);
    if (deps.mailbox) mailboxUp.set((await reachable(deps.mailbox)) ? 1 : 0);
    const c = await selectConsistency(deps.db);
    if (c.checkedTotal > consistencySeen) consistencyChecked.inc(c.checkedTotal - consistencySeen);
    consistencySeen = Math.max(consistencySeen, c.checkedTotal);
    consistencyMismatches.set(c.latest?.mismatches ?? 0);
    consistencyAt.set(c.latest ? c.latest.checkedAt.getTime() / 1000 : 0);
    const counted = await countDecisionsAfter(deps.db, decisionMark, SCAN_LIMIT);
    for (const c of counted.counts) {
      decisions.inc({ kind: c.kind }, c.n);
      if (c.reason) skipped.inc({ reason: c.reason }, c.n);
    }
    decisionMark = counted.upTo;
    for (const s of await selectSentAfter(deps.db, sentMarks, SCAN_LIMIT)) {
      latency.observe({ target: s.target }, s.seconds);
      if (BigInt(s.eventId) > BigInt(sentMarks.get(s.target) ?? '0')) sentMarks.set(s.target, s.eventId);
    }
  }

  async function reachable(mailbox: Pick<Mailbox, 'ping'>): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        mailbox.ping(),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('mailbox ping timed out')), MAILBOX_PING_MS))),
      ]);
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    registry,
    scrape() {
      // Concurrent scrapes share one refresh (the incremental marks must not be read twice).
      inFlight ??= refresh()
        .then(() => registry.metrics())
        .finally(() => {
          inFlight = null;
        });
      return inFlight;
    },
  };
}
