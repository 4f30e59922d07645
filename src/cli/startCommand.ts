import os from 'node:os';
import { parseArgs } from 'node:util';
import { RefusedError } from '../platform/errors.ts';
import { openRuntime } from '../platform/runtime.ts';
import { UsageError } from './usageError.ts';
import type { Command } from './commands.ts';
import { assemble, loadReadApi, ROLES, type Role } from './assemble.ts';
import { logLeftAtStop } from './leftAtStop.ts';

export const startCommand: Command = {
  summary: 'run the service (roles: all | writer | api), --standby to wait for the writer lock',
  usage: '[--role all|writer|api] [--standby] [--force] [--shadow]',
  help:
    'Runs msgx until SIGINT/SIGTERM (Ctrl-C), then stops its services in order and exits 0.\n' +
    '  --role all      everything (default); writer: ingest, pump, projectors, delivery; api: the read API only\n' +
    '  --standby       wait as a hot standby for the writer lock (serves the API meanwhile); stops at once on a signal\n' +
    '  --force         migrate a database that holds tables that are not msgx\'s\n' +
    '  --shadow        shadow run beside the legacy system (also MSGX_SHADOW=true): CMINMSGS read by its own\n' +
    '                  watermark and never written, no COUTMSGS, Kafka topics prefixed MSGX_SHADOW_TOPIC_PREFIX\n' +
    '                  (default shadow.); recorded in the database. Restarting without it is the cut-over\n' +
    'Without MSGX_DATABASE_URL it runs an embedded PostgreSQL under MSGX_DATA_DIR; a second msgx start on\n' +
    'the same folder refuses (exit 1), other commands connect to the running one and never stop it.',
  async run(args, { cfg, log, faults }) {
    const { values } = parseArgs({
      args: [...args],
      options: {
        role: { type: 'string', default: 'all' }, standby: { type: 'boolean', default: false }, force: { type: 'boolean', default: false },
        shadow: { type: 'boolean', default: false },
      },
      strict: true,
    });
    const role = values.role as Role;
    if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')} (got '${values.role}')`);

    // Signals are handled from the first moment: a stop during start-up (waiting for PostgreSQL,
    // migrating, folding the log) ends start-up and exits 0 like any other requested stop.
    const abort = new AbortController();
    let signalled = false;
    let stopNow: (() => void) | undefined; // set once the services are assembled
    const onSignal = (sig: NodeJS.Signals) => {
      if (signalled) return;
      signalled = true;
      log.info({ signal: sig }, 'stopping');
      abort.abort();
      stopNow?.();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);

    // The read API's modules load while PostgreSQL is connected to (or waited for); assemble awaits them.
    if (role !== 'writer') loadReadApi().catch(() => undefined);
    let rt: Awaited<ReturnType<typeof openRuntime>>;
    try {
      // Started by a supervisor while PostgreSQL is down (restarting): wait for it rather than crash-loop.
      rt = await openRuntime(cfg, log, {
        migrate: role !== 'api', waitForDatabase: true, signal: abort.signal, command: 'start', exclusive: true, force: values.force ?? false, faults,
      });
    } catch (err) {
      if (!signalled) throw err;
      log.info('msgx stopped during start-up');
      return 0;
    }
    let app: Awaited<ReturnType<typeof assemble>>;
    try {
      app = await assemble(rt, { role, standby: values.standby ?? false, shadow: values.shadow ?? false, operator: `${os.userInfo().username}@${os.hostname()}` });
    } catch (err) {
      await rt.close().catch(() => undefined);
      throw err;
    }
    const runtime = rt;
    const started = app;
    const stopped = new Promise<void>((resolve) => {
      // Also while app.start() runs (a standby waits there for the writer lock). Bounded by
      // MSGX_STOP_TIMEOUT_MS (docs/operations.md "Stopping"): whatever a service has not finished
      // by then is recorded in PostgreSQL and re-driven by the next start, so the process leaves.
      stopNow = () =>
        void (async () => {
          const t0 = performance.now();
          let timer: NodeJS.Timeout | undefined;
          const timedOut = new Promise<false>((r) => (timer = setTimeout(() => r(false), cfg.stopTimeoutMs)));
          const finished = await Promise.race([
            started.stop().catch((err: unknown) => log.error({ err }, 'error while stopping')).then(() => true as const),
            timedOut,
          ]);
          clearTimeout(timer);
          if (started.wrote()) await logLeftAtStop(runtime.pool, { now: runtime.clock.now(), tz: cfg.airportTz }, log, { finished, ms: performance.now() - t0, timeoutMs: cfg.stopTimeoutMs });
          // After a timeout the pools may hang on a service still using them: the exit closes them.
          if (finished) await runtime.close().catch((err: unknown) => log.error({ err }, 'error while closing'));
          resolve();
        })();
    });
    if (signalled) {
      stopNow!(); // the signal came between start-up steps: do not start the services at all
    } else {
      let cut = false;
      try {
        await app.start();
      } catch (err) {
        if (!signalled) {
          await app.stop().catch(() => undefined);
          await rt.close().catch(() => undefined);
          throw err;
        }
        // A stop cut the start short (e.g. a standby waiting for the lock): requested (exit 0), or
        // the standby's own refusal, found by its background fold meanwhile (below, as after a start).
        await stopped;
        if (!app.failure()) {
          log.info('msgx stopped during start-up');
          return 0;
        }
        cut = true;
      }
      if (!signalled && !cut) {
        const mode = await app.mode().catch(() => 'unknown');
        const base = `http://localhost:${app.httpPort()}`;
        log.info({ role, mode, console: `${base}/console`, http: `${base}/graphql` }, mode === 'shadow' ? 'msgx started in SHADOW mode' : 'msgx started');
      }
    }
    await stopped;
    const failure = app.failure();
    if (failure) {
      // A standby's model refused (archived history): the same "msgx start: …" line and exit code as a writer's start refusal.
      if (failure instanceof RefusedError) throw failure;
      // Not a requested stop: exit non-zero, so that a supervisor (systemd Restart=on-failure) starts it again.
      log.error({ err: failure }, 'msgx stopped itself: writer lock lost; exiting with code 1');
      return 1;
    }
    log.info('msgx stopped');
    return 0;
  },
};
