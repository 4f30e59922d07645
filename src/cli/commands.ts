import type { Config } from '../platform/config.ts';
import type { Faults } from '../platform/faults.ts';
import type { Logger } from '../platform/logger.ts';
export interface CommandContext {
  readonly cfg: Config;
  readonly log: Logger;
  /** The fault port for the runtime `start` opens (absent: none; see src/platform/faults.ts). */
  readonly faults?: Faults;
}

export interface Command {
  readonly summary: string;
  /** Its arguments for `msgx help <command>`, e.g. `--class C [--ids 1,2]` (default `[options]`). */
  readonly usage?: string;
  /** Longer help for `msgx help <command>` (default: the summary). */
  readonly help?: string;
  run(args: readonly string[], ctx: CommandContext): Promise<number>;
}

/**
 * Every `msgx` subcommand; each lives in its own module, loaded when it is run: `msgx start` loads
 * what start needs and not the other commands' modules (the export's, the comparison's
 * EventStoreDB client), which cost start-up time before the writer lock (docs/scaling.md
 * "Restart, takeover and stop"). The list and the help load them all.
 */
export const commands: Readonly<Record<string, () => Promise<Command>>> = {
  start: async () => (await import('./startCommand.ts')).startCommand,
  migrate: async () => (await import('./migrateCommand.ts')).migrateCommand,
  status: async () => (await import('./statusCommand.ts')).statusCommand,
  replay: async () => (await import('./replayCommand.ts')).replayCommand,
  'replay-deliveries': async () => (await import('./replayDeliveriesCommand.ts')).replayDeliveriesCommand,
  'request-plan': async () => (await import('./requestPlanCommand.ts')).requestPlanCommand,
  'request-reference': async () => (await import('./requestReferenceCommand.ts')).requestReferenceCommand,
  rebuild: async () => (await import('./rebuildCommand.ts')).rebuildCommand,
  redecide: async () => (await import('./redecideCommand.ts')).redecideCommand,
  verify: async () => (await import('./verifyCommand.ts')).verifyCommand,
  export: async () => (await import('./exportCommand.ts')).exportCommand,
  compare: async () => (await import('./compareCommand.ts')).compareCommand,
  archive: async () => (await import('./archiveCommand.ts')).archiveCommand,
  restore: async () => (await import('./restoreCommand.ts')).restoreCommand,
};

/** The command called `name`, loaded; undefined for an unknown name. */
export async function loadCommand(name: string): Promise<Command | undefined> {
  return Object.hasOwn(commands, name) ? commands[name]!() : undefined;
}

/** Every command, loaded, in the list's order (for `msgx help`). */
export async function loadCommands(): Promise<[string, Command][]> {
  return Promise.all(Object.entries(commands).map(async ([name, load]): Promise<[string, Command]> => [name, await load()]));
}
