import { parseArgs } from 'node:util';
import { openRuntime } from '../platform/runtime.ts';
import { UsageError } from './main.ts';
import type { Command } from './commands.ts';
import { assemble, ROLES, type Role } from './assemble.ts';

export const startCommand: Command = {
  summary: 'run the service (roles: all | writer | api), --standby to wait for the writer lock',
  async run(args, { cfg, log }) {
    const { values } = parseArgs({
      args: [...args],
      options: { role: { type: 'string', default: 'all' }, standby: { type: 'boolean', default: false } },
      strict: true,
    });
    const role = values.role as Role;
    if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')} (got '${values.role}')`);

    // Started by a supervisor while PostgreSQL is down (restarting): wait for it rather than crash-loop.
    const rt = await openRuntime(cfg, log, { migrate: role !== 'api', waitForDatabase: true });
    const app = await assemble(rt, { role, standby: values.standby ?? false });
    const stopped = new Promise<void>((resolve) => {
      let stopping = false;
      const onSignal = (sig: NodeJS.Signals) => {
        if (stopping) return;
        stopping = true;
        log.info({ signal: sig }, 'stopping');
        void app
          .stop()
          .catch((err: unknown) => log.error({ err }, 'error while stopping'))
          .then(() => rt.close())
          .catch((err: unknown) => log.error({ err }, 'error while closing'))
          .then(resolve);
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
    });
    try {
      await app.start();
    } catch (err) {
      await app.stop().catch(() => undefined);
      await rt.close().catch(() => undefined);
      throw err;
    }
    log.info({ role, http: `http://localhost:${app.httpPort()}/graphql` }, 'msgx started');
    await stopped;
    const failure = app.failure();
    if (failure) {
      // Not a requested stop: exit non-zero, so that a supervisor (systemd Restart=on-failure) starts it again.
      log.error({ err: failure }, 'msgx stopped itself: writer lock lost; exiting with code 1');
      return 1;
    }
    log.info('msgx stopped');
    return 0;
  },
};
